package dispatch

import (
	"github.com/agentic-workspace/aw/engine/agent"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// run reaches the model endpoint and may run what the run's tools allow:
// the exec tier, gated as kind agent (Manual mode stages it only when the
// run could run commands or reach the web). status, history and list read
// .agentic/agents/. start, cancel, send and wait are rows already so the
// tool's shape is stable; they answer that they are not available yet.
func agentActions() []*Action {
	return []*Action{
		Bind(Agent, "run", workspace.TierExec, "agent", "Run a sub-agent on an objective in bounded passes and wait for its report (summary, evidence, remaining work, transactions, jobs)", agent.RunAction).Does(Writes | Destroys | Network),
		Bind(Agent, "start", workspace.TierExec, "agent", "Start a run in the background (not available yet: use run)", agent.Later("start")).Does(Writes | Destroys | Network),
		Bind(Agent, "status", workspace.TierRead, "", "Show a run's status and, once it ended, its report", agent.Status),
		Bind(Agent, "history", workspace.TierRead, "", "Read a run's transcript, a page of events at a time", agent.History),
		Bind(Agent, "list", workspace.TierRead, "", "List runs, newest first", agent.List),
		Bind(Agent, "cancel", workspace.TierExec, "", "Cancel a running run (not available yet)", agent.Later("cancel")).Does(Writes | Destroys | Idempotent),
		Bind(Agent, "send", workspace.TierExec, "", "Send a run more instructions (not available yet)", agent.Later("send")).Does(Writes),
		Bind(Agent, "wait", workspace.TierRead, "", "Wait until a run settles (not available yet)", agent.Later("wait")),
	}
}
