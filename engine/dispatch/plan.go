package dispatch

import (
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Plans are gate records, never gated themselves: proposing one is how an
// agent asks for the right to mutate in Plan mode. The tool is registered
// unless the mode is Auto (Plan.Enabled). Proposing or completing one
// changes the gate's records: the write tier.
func planActions() []*Action {
	return []*Action{
		Bind(Plan, "propose", workspace.TierWrite, "", "Propose a plan for the user to approve (supersedes the pending or approved one)", gate.Propose).Does(Writes),
		Bind(Plan, "current", workspace.TierRead, "", "The pending plan, else the approved one, else none", gate.PlanCurrent),
		Bind(Plan, "show", workspace.TierRead, "", "Show one plan", gate.PlanShow),
		Bind(Plan, "complete", workspace.TierWrite, "", "End the approved plan (Plan mode locks mutating calls again)", gate.PlanComplete).Does(Writes | Idempotent),
		Bind(Plan, "list", workspace.TierRead, "", "List plans, newest first", gate.PlanListAll),
	}
}
