package dispatch

import (
	"context"

	"github.com/agentic-workspace/aw/engine/broker"
	"github.com/agentic-workspace/aw/engine/command"
	"github.com/agentic-workspace/aw/engine/edit"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/lsp"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// The language tools and the broker that holds their servers.
var (
	LSP = &Tool{Name: "workspace_lsp", Noun: "lsp", Short: "Language-server queries and project-wide rename", Use: "Ask the project's language server (gopls, pyright, typescript-language-server, clangd) instead of guessing from text: where a symbol is defined, every reference, its type and doc comment, the file's or workspace's symbols, the diagnostics of a file. A position is a line plus the symbol's text on that line, never a column. rename returns a planned transaction to review and commit with workspace_edit. Edits and commands already fold the diagnostics they newly introduced into their result."}
	// Broker is aw's own noun: the process that keeps servers warm.
	Broker = &Tool{Noun: "broker", Short: "The workspace's broker of long-lived processes (language servers, debug sessions, interpreters)"}
)

// Queries are read tier and never gated: the server runs in the OS
// sandbox with the workspace read-only. rename plans a transaction (the
// write tier, so a read-only caller never sees it); its commit is gated
// as any edit.
func lspActions() []*Action {
	return []*Action{
		Bind(LSP, "definition", workspace.TierRead, "", "Where the symbol on this line is declared", lsp.Definition),
		Bind(LSP, "type_definition", workspace.TierRead, "", "Where the type of the symbol on this line is declared", lsp.TypeDefinition),
		Bind(LSP, "implementation", workspace.TierRead, "", "Concrete implementations of the interface or method on this line (at most 50)", lsp.Implementation),
		Bind(LSP, "references", workspace.TierRead, "", "Every use of the symbol on this line, declaration included (at most 50)", lsp.References),
		Bind(LSP, "hover", workspace.TierRead, "", "Signature and doc comment of the symbol on this line", lsp.Hover),
		Bind(LSP, "symbols", workspace.TierRead, "", "Workspace symbols matching a query (at most 100), or a file's symbols (at most 200)", lsp.Symbols),
		Bind(LSP, "diagnostics", workspace.TierRead, "", "Errors and warnings of a file, or '*' for everything the server reports for the workspace", lsp.Diagnostics),
		Bind(LSP, "code_actions", workspace.TierRead, "", "Quick fixes and refactorings the server offers at the symbol on this line", lsp.CodeActions),
		Bind(LSP, "status", workspace.TierRead, "", "Which language servers can answer for this workspace and exactly why not, and which run", lsp.Status),
		Bind(LSP, "reload", workspace.TierRead, "", "Restart the workspace's language servers (the next query starts them)", lsp.Reload).Does(Writes | Idempotent),
		Bind(LSP, "rename", workspace.TierWrite, "", "Rename the symbol on this line across the project: a planned transaction to commit with edit commit", lsp.Rename).Does(Writes),
	}
}

func brokerActions() []*Action {
	return []*Action{
		Bind(Broker, "status", workspace.TierRead, "", "Show the broker's process and every resource it holds, with pids and ages", broker.StatusAction),
		Bind(Broker, "stop", workspace.TierExec, "", "End the broker and every process it holds (the next call that needs one starts it again)", broker.StopAction).Does(Writes | Destroys | Idempotent),
	}
}

// foldEdit adds the diagnostics a committed transaction introduced.
func foldEdit(ctx context.Context, ws *workspace.Workspace, env *envelope.Envelope) {
	r, ok := env.Data.(*edit.Result)
	if !ok || !r.Committed || r.Status != "applied" || r.NoOp {
		return
	}
	var files []string
	for _, f := range r.Files {
		files = append(files, ws.Root+"/"+f.Path)
	}
	if files == nil {
		return
	}
	lsp.FoldDiagnostics(ctx, ws, files, env)
}

// foldCommand adds the diagnostics the files a command changed introduced.
func foldCommand(ctx context.Context, ws *workspace.Workspace, env *envelope.Envelope) {
	if r, ok := env.Data.(*command.Result); ok && r.Status != "pending_approval" {
		lsp.FoldDiagnostics(ctx, ws, nil, env)
	}
}
