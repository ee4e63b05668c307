package dispatch

import (
	"github.com/agentic-workspace/aw/engine/ast"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// AST is structural search and rewrite, a tool of its own (see engine/ast
// for why): grep reads; edit plans a transaction (write tier, like the edit
// it stages); resolve accept is a transaction commit through the gate.
var AST = &Tool{Name: "workspace_ast", Noun: "ast", Short: "Structural search and rewrite by code shape",
	Use: "Find and rewrite code by its syntax tree rather than its text: the pattern is code with metavariables ($NAME one node, $$$NAME a run, $_ any node; a name used twice must capture the same text), parsed by the file's own grammar, so it matches however the code is spaced or wrapped and never inside strings or comments. edit stages the rewrite as a planned transaction and writes nothing; resolve accept commits it (gated like workspace_edit commit, refused whole if a file changed since), discard drops it."}

func astActions() []*Action {
	return []*Action{
		Bind(AST, "grep", workspace.TierRead, "", "Find code matching a structural pattern (honours .gitignore)", ast.Grep),
		Bind(AST, "edit", workspace.TierWrite, "", "Stage a structural rewrite as a planned transaction; nothing is written", ast.Edit).Does(Writes),
		Bind(AST, "resolve", workspace.TierWrite, "transaction", "Accept (commit, gated) or discard a staged structural rewrite", ast.Resolve).Does(Writes | Destroys),
	}
}
