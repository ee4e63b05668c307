package commands

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/agent"
	"github.com/agentic-workspace/aw/engine/dispatch"
)

func (a *app) agentCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agent",
		Short: dispatch.Agent.Short,
		Long: `Durable sub-agents (agents.enabled). A run works on one objective through
an OpenAI-compatible chat-completions endpoint (agents.baseUrl, agents.model,
the API key in the variable agents.apiKeyEnv names) with the workspace_*
tools it is allowed, in bounded passes: each pass starts from the run's
saved state (objective, context, what earlier passes recorded, compacted
tool results), never from an ever-growing transcript. max_passes,
rounds_per_pass and max_tool_calls are hard caps.

Every tool call of a run goes through the same path as yours: the jail,
the permission gate, the command policy and the OS sandbox apply to it. A
run gets no human verbs, no plans, no sub-agents of its own, no background
jobs, no repository writes and no browser.

The gate: in Auto mode, or Plan mode with an approved plan, a run commits
its own edits; in Plan mode without an approved plan, run is refused; in
Manual mode a run's edits stay planned (commit_edits false), and run is
staged for approval when the run could run commands (commands.enabled,
agents.allowCommands, allow_commands not false; research mode defaults to
none) or reach the web (research.enabled, agents.allowWeb, allow_web not
false); a run that can do neither starts at once. --commit-edits=false
lowers the default; true cannot raise it.

State lives in .agentic/agents/<run_id>/: state.json (written before the
run starts and after each pass) and transcript.jsonl (every model reply
and tool result, synced to disk as it happens).

run waits in the foreground for the report (Ctrl-C cancels it). start
returns the run id at once and a detached supervisor runs the loop: it
outlives the aw that started it, exits when the run settles, and stops
when .agentic/ or the run's record is removed. cancel stops a run from any
process; wait blocks until it settles; send adds instructions (a running
run reads them before its next model request, a settled one runs on with
them). A run whose process died is reported interrupted, and
start --resume RUN continues it from its last finished tool call: an
unfinished call runs again only when its action is safe to repeat.

--worker-tier fast|good picks the model agents.models.fast or agents.models.good
names (fast for mechanical work with a clear specification, good for
design, judgment or reviewing). A run can ask the human a question through
its ask_user tool (answered with aw answer; with nobody to answer it fails
at once and the run goes on). --research-project ties a run to a research
project: its searches, fetches and notes are recorded there (aw research
deep starts such a run for you). --task-board ties it to a task board:
every pass starts from the board as it is then, and the run marks its
items as it works (the board is where its progress lives).

With a host (host.url, the token in the variable host.tokenEnv names), a
run records its start there and reads the host's ground-truth files as of
that moment: every pass shows them, unchanged by later writes, and the
next run sees the writes. --host-parent-run makes the run read the
snapshot of the host run it is a sub-agent of. A host that cannot answer
refuses the run.`,
	}
	objective := func(req any, args []string) {
		if len(args) == 0 {
			return
		}
		switch r := req.(type) {
		case *agent.RunRequest:
			r.Objective = strings.Join(args, " ")
		case *agent.StartRequest:
			r.Objective = strings.Join(args, " ")
		}
	}
	run := a.verb(dispatch.Agent, "run", "run [OBJECTIVE...] [--objective T] [--context C] [--mode M] [--worker-tier fast|good] [--commit-edits=false] [--allow-commands=false] [--allow-web=false] [--max-passes N] [--rounds-per-pass N] [--max-tool-calls N]", func(f *pflag.FlagSet, req any) {
		bindRunFlags(f, req.(*agent.RunRequest))
	}, objective)
	start := a.verb(dispatch.Agent, "start", "start [OBJECTIVE...] [run's flags] | start --resume RUN", func(f *pflag.FlagSet, req any) {
		r := req.(*agent.StartRequest)
		bindRunFlags(f, &r.RunRequest)
		f.StringVar(&r.Resume, "resume", "", "continue this interrupted or failed run from its last finished tool call")
	}, objective)
	for _, c := range []*cobra.Command{run, start} {
		for _, f := range []string{"commit-edits", "allow-commands", "allow-web"} {
			c.Flags().Lookup(f).NoOptDefVal = "true"
		}
	}
	runArg := func(req any, args []string) {
		if len(args) == 0 {
			return
		}
		switch r := req.(type) {
		case *agent.RunIDRequest:
			r.RunID = args[0]
		case *agent.HistoryRequest:
			r.RunID = args[0]
		case *agent.WaitRequest:
			r.RunID = args[0]
		case *agent.SendRequest:
			r.RunID = args[0]
			if len(args) > 1 {
				r.Message = strings.Join(args[1:], " ")
			}
		}
	}
	status := a.verb(dispatch.Agent, "status", "status RUN", nil, runArg)
	history := a.verb(dispatch.Agent, "history", "history RUN [--offset N] [--limit N]", func(f *pflag.FlagSet, req any) {
		r := req.(*agent.HistoryRequest)
		f.IntVar(&r.Offset, "offset", 0, "events to skip from the start")
		f.IntVar(&r.Limit, "limit", 0, "most events, 1-200 (default 50)")
	}, runArg)
	list := a.verb(dispatch.Agent, "list", "list [--limit N]", func(f *pflag.FlagSet, req any) {
		f.IntVar(&req.(*agent.ListRequest).Limit, "limit", 0, "most runs, 1-200 (default 20)")
	}, nil)
	list.Args = cobra.NoArgs
	cancel := a.verb(dispatch.Agent, "cancel", "cancel RUN", nil, runArg)
	send := a.verb(dispatch.Agent, "send", "send RUN MESSAGE...", func(f *pflag.FlagSet, req any) {
		f.StringVar(&req.(*agent.SendRequest).Message, "message", "", "the instructions (instead of the words after RUN)")
	}, runArg)
	wait := a.verb(dispatch.Agent, "wait", "wait RUN [--timeout S]", func(f *pflag.FlagSet, req any) {
		f.Var(optionalFloat{&req.(*agent.WaitRequest).TimeoutSeconds}, "timeout", "seconds to wait, 1-3600 (default 60); still running then is a TIMEOUT error")
	}, runArg)
	for _, c := range []*cobra.Command{status, history, cancel, wait} {
		c.Args = cobra.MaximumNArgs(1)
	}
	cmd.AddCommand(run, start, status, history, list, cancel, send, wait, a.agentSuperviseCmd())
	return cmd
}

func bindRunFlags(f *pflag.FlagSet, r *agent.RunRequest) {
	f.StringVar(&r.Objective, "objective", "", "what the run must achieve (at most 20,000 characters)")
	f.StringVar(&r.Context, "context", "", "background for the run (at most 100,000 characters)")
	f.StringVar(&r.Role, "role", "", "who the run acts as, in a few words")
	f.StringVar(&r.ModelID, "model", "", "the model to ask (default: agents.model)")
	// Not --tier: that is aw's own cap (read, write, exec) on every call.
	f.StringVar(&r.Tier, "worker-tier", "", "fast or good: the model agents.models.fast or agents.models.good names")
	f.StringVar(&r.Mode, "mode", "", "coding (default), research or general")
	f.Var(optionalBool{&r.CommitEdits}, "commit-edits", "false: the run's transactions stay planned (it can only lower the mode's default)")
	f.Var(optionalBool{&r.AllowCommands}, "allow-commands", "false: the run runs no commands")
	f.Var(optionalBool{&r.AllowWeb}, "allow-web", "false: the run stays off the web")
	f.IntVar(&r.MaxPasses, "max-passes", 0, "most passes, 1-20 (default 4)")
	f.IntVar(&r.RoundsPerPass, "rounds-per-pass", 0, "most model requests per pass, 1-50 (default 8)")
	f.IntVar(&r.MaxToolCalls, "max-tool-calls", 0, "most tool calls in the run, 1-500 (default 40)")
	f.StringVar(&r.IdempotencyKey, "idempotency-key", "", "re-issuing the same run with this key returns the first one")
	f.StringVar(&r.ResearchProjectID, "research-project", "", "a research_ project the run records its searches, fetches and notes into")
	f.StringVar(&r.TaskBoardID, "task-board", "", "a board_ the run works from: each pass shows it, and its task updates go there")
	f.StringVar(&r.HostParentRunID, "host-parent-run", "", "with host.url: the host run (run_...) this run is a sub-agent of; it reads that run's snapshot")
}

// agentSuperviseCmd is the detached supervisor `aw agent start` launches
// (aw re-executed; fd 3 carries its report back). Hidden: nobody else
// calls it, and it only runs a run start recorded for it.
func (a *app) agentSuperviseCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "supervise RUN",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep := os.NewFile(3, "report")
			ws, err := a.openWorkspace()
			if err == nil {
				err = agent.Supervise(cmd.Context(), ws, args[0], rep)
			} else if rep != nil {
				rep.Close()
			}
			if err != nil {
				fmt.Fprintf(a.io.Err, "aw agent supervise: %v\n", err)
				a.exitCode = ExitFailed
			}
			return nil
		},
	}
}

// optionalBool is a flag bound to a *bool field: unset stays nil, so the
// engine can tell "not given" from false.
type optionalBool struct{ p **bool }

func (o optionalBool) String() string {
	if o.p == nil || *o.p == nil {
		return ""
	}
	return strconv.FormatBool(**o.p)
}

func (o optionalBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	*o.p = &v
	return nil
}

func (o optionalBool) Type() string { return "bool" }
