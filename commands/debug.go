package commands

import (
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/debug"
	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/envelope"
)

func (a *app) debugCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "debug",
		Short: dispatch.Debug.Short,
		Long: `A debugger over the Debug Adapter Protocol: delve for Go, debugpy for Python.
One session per workspace, held by the workspace's broker (aw broker status),
ended after debug.ttlSeconds (30 minutes) at most:

  aw debug adapters                   which debuggers can start here, and why not
  aw debug breakpoints main.go 12 30  set breakpoints (before launch is fine; no lines clears)
  aw debug launch ./cmd/tool ARGS     start it, stopped at the first breakpoint (gated like a command run;
                                      aw flags go before PROGRAM, everything after it is the program's)
  aw debug launch app.py
  aw debug stack                      frames of the stopped thread (at most 30)
  aw debug scopes FRAME               a frame's scopes and their references
  aw debug variables REF              children of a reference (at most 50, values at most 400 chars)
  aw debug evaluate 'len(items)'      in the stopped frame (--frame F for another)
  aw debug continue | step-over | step-in | step-out | pause   [--thread T]
  aw debug output                     what the program printed (bounded; --since N)
  aw debug status                     where it stopped, the breakpoints
  aw debug terminate                  end the session (a second launch is refused until then)

A debugger is usable when its root marker (go.mod; pyproject.toml, setup.py or
requirements.txt) is in the workspace root and its binary is found (dlv on
PATH or in GOPATH/bin; for debugpy a python that imports it, the project's
.venv or venv first). The adapter and the program pass the command policy
(commands.allow must name dlv and go, or python3) and run in the OS sandbox
like any command.`,
	}
	var parseErr error
	intArg := func(name string, s string, dst *int) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			parseErr = envelope.Errorf(envelope.InvalidInput, "%s must be a number, got %q", name, s)
			return
		}
		*dst = n
	}
	wait := func(f *pflag.FlagSet, w **float64) {
		f.Var(optionalFloat{w}, "wait", "seconds to wait for the next stop or the end (default 30, at most 300)")
	}
	control := func(action, use string) *cobra.Command {
		c := a.verb(dispatch.Debug, action, use+" [--thread T] [--wait S]", func(f *pflag.FlagSet, req any) {
			r := req.(*debug.ControlRequest)
			f.IntVar(&r.ThreadID, "thread", 0, "the thread (default: the one that stopped)")
			wait(f, &r.WaitSeconds)
		}, nil)
		c.Args = cobra.NoArgs
		return c
	}
	noArgs := func(action string) *cobra.Command {
		c := a.verb(dispatch.Debug, action, action, nil, nil)
		c.Args = cobra.NoArgs
		return c
	}
	breakpoints := a.verb(dispatch.Debug, "breakpoints", "breakpoints FILE [LINE...]", nil, func(req any, args []string) {
		r := req.(*debug.BreakpointsRequest)
		if len(args) > 0 {
			r.File = args[0]
		}
		for _, s := range args[min(1, len(args)):] {
			var n int
			intArg("LINE", s, &n)
			r.Lines = append(r.Lines, n)
		}
	})
	launch := a.verb(dispatch.Debug, "launch", "launch [--adapter A] [--wait S] PROGRAM [ARGS...]", func(f *pflag.FlagSet, req any) {
		r := req.(*debug.LaunchRequest)
		f.StringVar(&r.Adapter, "adapter", "", "delve or debugpy (default: chosen by the program)")
		wait(f, &r.WaitSeconds)
	}, func(req any, args []string) {
		r := req.(*debug.LaunchRequest)
		if len(args) > 0 {
			r.Program, r.Args = args[0], args[1:]
		}
	})
	launch.Flags().SetInterspersed(false)
	attach := a.verb(dispatch.Debug, "attach", "attach PORT", func(f *pflag.FlagSet, req any) {
		r := req.(*debug.AttachRequest)
		f.StringVar(&r.Adapter, "adapter", "", "delve or debugpy (default delve)")
		wait(f, &r.WaitSeconds)
	}, func(req any, args []string) {
		if len(args) > 0 {
			intArg("PORT", args[0], &req.(*debug.AttachRequest).Port)
		}
	})
	attach.Args = cobra.MaximumNArgs(1)
	stack := a.verb(dispatch.Debug, "stack", "stack [--thread T]", func(f *pflag.FlagSet, req any) {
		f.IntVar(&req.(*debug.StackRequest).ThreadID, "thread", 0, "the thread (default: the one that stopped)")
	}, nil)
	stack.Args = cobra.NoArgs
	scopes := a.verb(dispatch.Debug, "scopes", "scopes FRAME", nil, func(req any, args []string) {
		if len(args) > 0 {
			intArg("FRAME", args[0], &req.(*debug.ScopesRequest).FrameID)
		}
	})
	scopes.Args = cobra.MaximumNArgs(1)
	variables := a.verb(dispatch.Debug, "variables", "variables REF", nil, func(req any, args []string) {
		if len(args) > 0 {
			intArg("REF", args[0], &req.(*debug.VariablesRequest).Reference)
		}
	})
	variables.Args = cobra.MaximumNArgs(1)
	evaluate := a.verb(dispatch.Debug, "evaluate", "evaluate EXPR [--frame F]", func(f *pflag.FlagSet, req any) {
		f.IntVar(&req.(*debug.EvaluateRequest).FrameID, "frame", 0, "the frame (default: the top frame of the stop)")
	}, func(req any, args []string) {
		if len(args) > 0 {
			req.(*debug.EvaluateRequest).Expression = args[0]
		}
	})
	evaluate.Args = cobra.MaximumNArgs(1)
	output := a.verb(dispatch.Debug, "output", "output [--since N]", func(f *pflag.FlagSet, req any) {
		f.Int64Var(&req.(*debug.OutputRequest).Since, "since", 0, "a byte offset from an earlier output's next: only what came after")
	}, nil)
	output.Args = cobra.NoArgs
	for _, c := range []*cobra.Command{breakpoints, launch, attach, scopes, variables, evaluate} {
		a.beforeDispatch(c, func(any) error {
			err := parseErr
			parseErr = nil
			return err
		})
	}
	cmd.AddCommand(noArgs("adapters"), noArgs("status"), breakpoints, launch, attach,
		control("continue", "continue"), control("pause", "pause"), control("step_over", "step-over"),
		control("step_in", "step-in"), control("step_out", "step-out"),
		noArgs("threads"), stack, scopes, variables, evaluate, output, noArgs("terminate"))
	return cmd
}
