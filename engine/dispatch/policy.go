package dispatch

import (
	"github.com/agentic-workspace/aw/engine/policy"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Policy is aw's own noun: it answers questions about the command policy
// and the jail without running or changing anything, so it is never gated
// and callable at the read tier.
var Policy = &Tool{Noun: "policy", Short: "Ask the command policy and the jail without running anything"}

func policyActions() []*Action {
	return []*Action{
		Bind(Policy, "check_command", workspace.TierRead, "", "Say whether a command (argv or shell line) may run, and why", policy.CheckCommand),
		Bind(Policy, "check_path", workspace.TierRead, "", "Say whether a path may be read or written through the jail", policy.CheckPath),
	}
}
