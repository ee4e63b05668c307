package dispatch

import (
	"github.com/agentic-workspace/aw/engine/agent"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// run reaches the model endpoint and may run what the run's tools allow:
// the exec tier, gated as kind agent (Manual mode stages it only when the
// run could run commands or reach the web). start is run in a detached
// supervisor, gated the same; send is gated the same way (it changes what
// such a run does). status, history, list and wait read .agentic/agents/;
// cancel asks the run's loop to stop, from any process.
func agentActions() []*Action {
	return []*Action{
		Bind(Agent, "run", workspace.TierExec, "agent", "Run a sub-agent on an objective in bounded passes and wait for its report (summary, evidence, remaining work, transactions, jobs)", agent.RunAction).Does(Writes | Destroys | Network).Awaits(),
		Bind(Agent, "start", workspace.TierExec, "agent", "Start a run in the background and return its run_ id at once (resume: continue an interrupted run)", agent.StartAction).Does(Writes | Destroys | Network),
		Bind(Agent, "status", workspace.TierRead, "", "Show a run's status and, once it ended, its report", agent.Status),
		Bind(Agent, "history", workspace.TierRead, "", "Read a run's transcript, a page of events at a time", agent.History),
		Bind(Agent, "list", workspace.TierRead, "", "List runs, newest first", agent.List),
		Bind(Agent, "cancel", workspace.TierExec, "", "Stop a running run (it is recorded cancelled with what it did so far)", agent.Cancel).Does(Writes | Destroys | Idempotent),
		Bind(Agent, "send", workspace.TierExec, "agent", "Send a run more instructions: a running run reads them next, a settled one runs on with them", agent.Send).Does(Writes | Destroys | Network),
		Bind(Agent, "wait", workspace.TierRead, "", "Wait until a run settles and return its report", agent.Wait).Awaits(),
	}
}
