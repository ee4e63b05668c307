package commands

import (
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/eval"
)

func (a *app) evalCmd() *cobra.Command {
	var stdinErr error
	c := a.verb(dispatch.Eval, "run", "eval [CODE | -] --description D [--language python] [--reset] [--timeout S]", func(f *pflag.FlagSet, req any) {
		r := req.(*eval.Request)
		f.StringVar(&r.Description, "description", "", "5-10 words saying what the cell does (required)")
		f.StringVar(&r.Language, "language", "", "python (default) or javascript")
		f.BoolVar(&r.Reset, "reset", false, "discard the interpreter and start clean first")
		f.Var(optionalFloat{&r.TimeoutSeconds}, "timeout", "seconds without output before the cell is interrupted (default and cap: eval.timeoutSeconds)")
	}, func(req any, args []string) {
		r := req.(*eval.Request)
		switch {
		case len(args) == 1 && args[0] == "-":
			raw, err := io.ReadAll(io.LimitReader(a.io.In, 8<<20))
			if err != nil {
				stdinErr = envelope.Errorf(envelope.InvalidInput, "cannot read the cell from stdin: %v", err)
			}
			r.Code = string(raw)
		case len(args) > 0:
			r.Code = strings.Join(args, " ")
		}
	})
	a.beforeDispatch(c, func(any) error { return stdinErr })
	c.Long = `Run a Python cell (or a JavaScript one: --language javascript, node) in the
workspace's persistent interpreter: variables, imports and loaded data
survive between calls, like a notebook's.

  aw eval 'import json; rows = json.load(open("data.json"))' --description 'load the rows'
  aw eval 'len(rows)' --description 'count the rows'            (the last expression is echoed)
  aw eval - --description 'plot the latency histogram' < cell.py
  aw eval 'x' --reset --description 'start clean'

Inside a cell:
  tool("read", {"path": "README.md"})     a workspace tool, under the same jail, tier, gate
                                          and approvals as any aw call; returns its data
  tool("edit.apply", {"operations": [...]})
  display(value)                          show a value (a pandas frame as a table)
  !ls -la   /  %%bash                     run through the command policy like aw command run
  %cd DIR  %pip install X  %timeit EXPR  %%timeit

A matplotlib figure left open comes back as a PNG artifact. The cell is
interrupted after eval.timeoutSeconds (300) without output; a bridged tool
call does not count. The interpreter runs in the OS sandbox, held by the
workspace's broker (aw broker status); every cell is gated like a command run.`
	return c
}
