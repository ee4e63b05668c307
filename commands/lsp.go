package commands

import (
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/lsp"
)

func (a *app) lspCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lsp",
		Short: dispatch.LSP.Short,
		Long: `Language-server answers about the workspace's code. A position is a line and
the symbol's text on that line, never a column:

  aw lsp definition main.go 12 Println
  aw lsp references internal/store/store.go 40 Open
  aw lsp hover main.go 12 Println
  aw lsp type-definition main.go 20 cfg
  aw lsp implementation store.go 8 Reader
  aw lsp symbols --query Store          (workspace search, at most 100)
  aw lsp symbols main.go                (the file's symbols, at most 200)
  aw lsp diagnostics main.go            (or '*' for the whole workspace)
  aw lsp code-actions main.go 12 err
  aw lsp rename store.go 40 Open OpenStore   (a planned transaction: aw edit commit TX)
  aw lsp status                         (which servers can answer, and why not)
  aw lsp reload                         (restart the servers)

A server is used when a root marker (go.mod, package.json, pyproject.toml,
compile_commands.json, ...) is found from the file up to the workspace root
and its binary is on PATH; lsp.servers adds or replaces servers. Servers run
in the workspace's broker (aw broker status), inside the OS sandbox with the
workspace read-only. After aw edit commit|apply and aw command run, the
diagnostics a change newly introduced are folded into its result
(data.diagnostics; lsp.diagnosticsOnWrite, lsp.diagnosticsWaitMs).`,
	}
	position := func(action, use string, n int) *cobra.Command {
		var lineErr error
		c := a.verb(dispatch.LSP, action, use, nil, func(req any, args []string) {
			var r *lsp.PositionRequest
			switch v := req.(type) {
			case *lsp.PositionRequest:
				r = v
			case *lsp.RenameRequest:
				if len(args) > 0 {
					v.File = args[0]
				}
				if len(args) > 1 {
					v.Line, lineErr = parseLine(args[1])
				}
				if len(args) > 2 {
					v.Symbol = args[2]
				}
				if len(args) > 3 {
					v.NewName = args[3]
				}
				return
			}
			if len(args) > 0 {
				r.File = args[0]
			}
			if len(args) > 1 {
				r.Line, lineErr = parseLine(args[1])
			}
			if len(args) > 2 {
				r.Symbol = args[2]
			}
		})
		a.beforeDispatch(c, func(any) error { return lineErr })
		c.Args = cobra.MaximumNArgs(n)
		return c
	}
	symbols := a.verb(dispatch.LSP, "symbols", "symbols (--query Q | FILE)", func(f *pflag.FlagSet, req any) {
		f.StringVar(&req.(*lsp.SymbolsRequest).Query, "query", "", "search the workspace's symbols for this text")
	}, func(req any, args []string) {
		if len(args) > 0 {
			req.(*lsp.SymbolsRequest).File = args[0]
		}
	})
	symbols.Args = cobra.MaximumNArgs(1)
	diags := a.verb(dispatch.LSP, "diagnostics", "diagnostics FILE|'*'", nil, func(req any, args []string) {
		if len(args) > 0 {
			req.(*lsp.DiagnosticsRequest).File = args[0]
		}
	})
	diags.Args = cobra.MaximumNArgs(1)
	status := a.verb(dispatch.LSP, "status", "status", nil, nil)
	reload := a.verb(dispatch.LSP, "reload", "reload", nil, nil)
	status.Args, reload.Args = cobra.NoArgs, cobra.NoArgs
	cmd.AddCommand(
		position("definition", "definition FILE LINE SYMBOL", 3),
		position("type_definition", "type-definition FILE LINE SYMBOL", 3),
		position("implementation", "implementation FILE LINE SYMBOL", 3),
		position("references", "references FILE LINE SYMBOL", 3),
		position("hover", "hover FILE LINE SYMBOL", 3),
		position("code_actions", "code-actions FILE LINE SYMBOL", 3),
		symbols, diags, status, reload,
		position("rename", "rename FILE LINE SYMBOL NEW_NAME", 4),
	)
	return cmd
}

func parseLine(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, envelope.Errorf(envelope.InvalidInput, "LINE must be a line number (1 or more), got %q", s)
	}
	return n, nil
}
