package commands

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/ast"
	"github.com/agentic-workspace/aw/engine/ast/syntax"
	"github.com/agentic-workspace/aw/engine/dispatch"
)

func (a *app) astCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ast",
		Short: dispatch.AST.Short,
		Long: `Find and rewrite code by its shape. A pattern is code with metavariables:
$NAME matches one node, $$$NAME a run of siblings (possibly none), $_ any
node without capturing it, and a name used twice must capture the same text:

  aw ast grep 'if $X != nil { return $X }'
  aw ast grep 'fmt.Errorf($F, $$$ARGS)' ./engine --lang go
  aw ast edit 'errors.Wrap($E, $M)' --rewrite 'fmt.Errorf($M+": %w", $E)'
  aw ast resolve tx_... accept

The pattern is parsed by the file's own parser, as a statement, an
expression, a class member or a declaration (the first that parses), so it
matches however the code is spaced, wrapped or commented and never inside a
string or a comment. A pattern no context accepts is refused, never searched.
edit writes nothing: it plans a transaction (its tx_ id is the edit id) with
its diff; resolve accept commits it through the permission gate like
` + "`aw edit commit`" + `, refused whole if any file changed since; discard drops it.`,
	}
	lang := func(f *pflag.FlagSet, p *string) {
		f.StringVar(p, "lang", "", "language id ("+joinIDs()+"); default: each file's, by its extension")
	}
	grep := a.verb(dispatch.AST, "grep", "grep PATTERN [PATH] [--lang L] [--max-results N]", func(f *pflag.FlagSet, req any) {
		r := req.(*ast.GrepRequest)
		lang(f, &r.Language)
		f.IntVar(&r.MaxResults, "max-results", 0, "matches to return (default 50, at most 10000)")
	}, func(req any, args []string) {
		r := req.(*ast.GrepRequest)
		if len(args) > 0 {
			r.Pattern = args[0]
		}
		if len(args) > 1 {
			r.Path = args[1]
		}
	})
	grep.Args = cobra.MaximumNArgs(2)
	edit := a.verb(dispatch.AST, "edit", "edit PATTERN --rewrite TEMPLATE [PATH] [--lang L]", func(f *pflag.FlagSet, req any) {
		r := req.(*ast.EditRequest)
		f.StringVar(&r.Rewrite, "rewrite", "", "the replacement, with $NAME and $$$NAME substituted")
		lang(f, &r.Language)
	}, func(req any, args []string) {
		r := req.(*ast.EditRequest)
		if len(args) > 0 {
			r.Pattern = args[0]
		}
		if len(args) > 1 {
			r.Path = args[1]
		}
	})
	edit.Args = cobra.MaximumNArgs(2)
	resolve := a.verb(dispatch.AST, "resolve", "resolve EDIT_ID accept|discard", nil, func(req any, args []string) {
		r := req.(*ast.ResolveRequest)
		if len(args) > 0 {
			r.EditID = args[0]
		}
		if len(args) > 1 {
			r.Decision = args[1]
		}
	})
	resolve.Args = cobra.MaximumNArgs(2)
	cmd.AddCommand(grep, edit, resolve)
	return cmd
}

func joinIDs() string {
	s := ""
	for i, id := range syntax.IDs() {
		if i > 0 {
			s += ", "
		}
		s += id
	}
	return s
}
