package commands

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/command"
	"github.com/agentic-workspace/aw/engine/dispatch"
)

// jobFollowCmds are the verbs that follow a running job: output (new bytes
// since a cursor) and wait (block until it ends).
func (a *app) jobFollowCmds() []*cobra.Command {
	output := a.verb(dispatch.Command, "output", "output JOB [--since CURSOR] [--wait-ms N]", func(f *pflag.FlagSet, req any) {
		r := req.(*command.OutputRequest)
		f.StringVar(&r.Since, "since", "", "the cursor a previous output call returned (data.cursor, like o:120,e:0); default: from the start")
		f.IntVar(&r.WaitMs, "wait-ms", 0, "milliseconds to wait for new output or the job's end, 0-30000 (returns as soon as either happens)")
	}, func(req any, args []string) {
		if len(args) > 0 {
			req.(*command.OutputRequest).JobID = args[0]
		}
	})
	output.Long = `Return what a job wrote to stdout and stderr since a cursor, each stream
separately, with the next cursor ("o:<stdout offset>,e:<stderr offset>", byte
offsets into the job's logs), the job's status and exit code. Pass the cursor
back with --since to get only what is new; --wait-ms N first waits up to N
milliseconds for new output or for the job to end, whichever comes first.

Each call returns at most maxToolResultChars of output. When more was written
since the cursor, the newest part is returned and data.droppedBytes counts the
older bytes skipped; they stay in .agentic/jobs/<job_id>/stdout.log and
stderr.log (the summary names the byte ranges). Output that is not valid UTF-8
is returned as base64 of the exact bytes (data.stdoutEncoding "base64").

  aw command output JOB
  aw command output JOB --since o:120,e:0 --wait-ms 10000`
	wait := a.verb(dispatch.Command, "wait", "wait JOB [--timeout S] [--tail-chars N]", func(f *pflag.FlagSet, req any) {
		r := req.(*command.WaitRequest)
		f.Var(optionalFloat{&r.TimeoutSeconds}, "timeout", "seconds to wait, 1-3600 (default 60); a job still running then fails with TIMEOUT (exit 1)")
		f.Var(optionalInt{&r.TailChars}, "tail-chars", "characters from the end of each log, 100-20000, as status takes")
	}, func(req any, args []string) {
		if len(args) > 0 {
			req.(*command.WaitRequest).JobID = args[0]
		}
	})
	output.Args, wait.Args = cobra.MaximumNArgs(1), cobra.MaximumNArgs(1)
	return []*cobra.Command{output, wait}
}

// bindCancel adds cancel's --all.
func bindCancel(f *pflag.FlagSet, req any) {
	f.BoolVar(&req.(*command.CancelRequest).All, "all", false, "stop every running job of the workspace instead of one")
}
