package commands

import (
	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/command"
	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/undo"
)

func (a *app) commandCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "command",
		Short: dispatch.Command.Short,
		Long: `Run commands under the command policy (commands.allow, deny, denyPatterns,
interpreter) as jobs. run waits and returns the exit code with the tails of
stdout and stderr; start returns at once and leaves a background job that
outlives this call. Full logs are kept under .agentic/jobs/<job_id>/.

  aw command run -- go test ./...
  aw command run --line 'go vet ./...'
  aw command start --timeout 0 -- npm run dev
  aw command status JOB [--tail-chars N]
  aw command output JOB [--since CURSOR] [--wait-ms N]
  aw command wait JOB [--timeout S]
  aw command cancel JOB | --all
  aw command test [--pattern NAME] [--path DIR]
  aw command diff JOB
  aw command undo JOB [--force]

test runs the workspace's test command (commands.testCommand; without it,
the one go.mod, package.json, Cargo.toml, pytest's files or a Makefile's
test target suggest) exactly as run would, adds the pattern and path as
arguments in the runner's own syntax (never through a shell), and reads the
output into passed, failed and skipped counts and the failing tests with
the end of their output. go test also gets -json, so every test's result is
read rather than guessed from text.

A failing command is data, not an error: run exits 0 whenever the command
ran; read data.exitCode, data.timedOut and data.cancelled.`,
	}
	for _, action := range []string{"run", "start"} {
		timeoutHelp := "seconds before the process tree is killed (default and cap: commands.maxSeconds)"
		if action == "start" {
			timeoutHelp += "; 0 = no timeout"
		}
		c := a.verb(dispatch.Command, action, action+" [--cwd DIR] [--timeout S] (-- EXECUTABLE ARGS... | --line LINE)", func(f *pflag.FlagSet, req any) {
			r := req.(*command.Request)
			f.StringVar(&r.Cwd, "cwd", "", "directory to run in, relative to the workspace root (default: the root)")
			f.Var(optionalFloat{&r.TimeoutSeconds}, "timeout", timeoutHelp)
			f.StringVar(&r.Line, "line", "", "a command line instead of an argv (tokenized, or parsed as sh when commands.interpreter is sh)")
		}, func(req any, args []string) {
			if len(args) > 0 {
				r := req.(*command.Request)
				r.Executable, r.Args = args[0], args[1:]
			}
		})
		// Flags after the executable belong to it: `aw command run go test -v`.
		c.Flags().SetInterspersed(false)
		cmd.AddCommand(c)
	}
	test := a.verb(dispatch.Command, "test", "test [--pattern P] [--path P] [--timeout S]", func(f *pflag.FlagSet, req any) {
		r := req.(*command.TestRequest)
		f.StringVar(&r.Pattern, "pattern", "", "select tests by name in the runner's filter syntax, passed as one argument (go: -run REGEXP; npm: the test script's flag, -t for jest and vitest, --test-name-pattern for node --test, --grep for mocha; pytest: -k EXPR; cargo: the test filter)")
		f.StringVar(&r.Path, "path", "", "narrow the run to a package, directory or file, relative to the workspace root (go: DIR or DIR/...; pytest: FILE::TEST; cargo: a crate directory)")
		f.Var(optionalFloat{&r.TimeoutSeconds}, "timeout", "seconds before the process tree is killed (default and cap: commands.maxSeconds)")
	}, nil)
	test.Args = cobra.NoArgs
	cmd.AddCommand(test)
	jobArg := func(req any, args []string) {
		if len(args) == 0 {
			return
		}
		switch r := req.(type) {
		case *command.StatusRequest:
			r.JobID = args[0]
		case *command.CancelRequest:
			r.JobID = args[0]
		case *undo.UndoRequest:
			r.JobID = args[0]
		case *undo.DiffRequest:
			r.JobID = args[0]
		}
	}
	status := a.verb(dispatch.Command, "status", "status JOB [--tail-chars N]", func(f *pflag.FlagSet, req any) {
		f.Var(optionalInt{&req.(*command.StatusRequest).TailChars}, "tail-chars",
			"characters from the end of each log, 100-20000 (default 2000; a finished job is tailed only when this is given)")
	}, jobArg)
	cancel := a.verb(dispatch.Command, "cancel", "cancel (JOB | --all)", bindCancel, jobArg)
	list := a.verb(dispatch.Command, "list", "list [--limit N]", func(f *pflag.FlagSet, req any) {
		f.IntVar(&req.(*command.ListRequest).Limit, "limit", 0, "most jobs to show, 1-200 (default 20)")
	}, nil)
	undoCmd := a.verb(dispatch.Command, "undo", "undo JOB [--force]", func(f *pflag.FlagSet, req any) {
		f.BoolVar(&req.(*undo.UndoRequest).Force, "force", false, "also restore paths changed again after the job (destructive: overwrites those later changes)")
	}, jobArg)
	diff := a.verb(dispatch.Command, "diff", "diff JOB", nil, jobArg)
	status.Args, cancel.Args, list.Args = cobra.MaximumNArgs(1), cobra.MaximumNArgs(1), cobra.NoArgs
	undoCmd.Args, diff.Args = cobra.MaximumNArgs(1), cobra.MaximumNArgs(1)
	cmd.AddCommand(status, cancel, list, undoCmd, diff, a.superviseCmd())
	cmd.AddCommand(a.jobFollowCmds()...)
	return cmd
}

// superviseCmd is the detached supervisor `aw command start` launches
// (aw re-executed; fd 3 carries its report back). Hidden: nobody else calls
// it, and it only runs a job start recorded and has not handed out yet.
func (a *app) superviseCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "supervise JOB",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := a.root
			if root == "" {
				root = a.io.Dir
			}
			if err := command.Supervise(root, args[0], os.NewFile(3, "report")); err != nil {
				a.exitCode = ExitFailed
			}
			return nil
		},
	}
}

// optionalFloat is a flag bound to a *float64 field, so "not given" (nil)
// and "given 0" stay distinct.
type optionalFloat struct{ p **float64 }

func (o optionalFloat) String() string {
	if o.p == nil || *o.p == nil {
		return ""
	}
	return strconv.FormatFloat(**o.p, 'g', -1, 64)
}

func (o optionalFloat) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		// JSON has no such numbers: the envelope could not even say so.
		return fmt.Errorf("%q is not a finite number of seconds", s)
	}
	*o.p = &v
	return nil
}

func (o optionalFloat) Type() string { return "seconds" }

// optionalInt is a flag bound to a *int field.
type optionalInt struct{ p **int }

func (o optionalInt) String() string {
	if o.p == nil || *o.p == nil {
		return ""
	}
	return strconv.Itoa(**o.p)
}

func (o optionalInt) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return err
	}
	*o.p = &v
	return nil
}

func (o optionalInt) Type() string { return "int" }
