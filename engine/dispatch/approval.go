package dispatch

import (
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Approval is aw's own noun for the human's side of the gate.
var Approval = &Tool{Noun: "approval", Short: "The human's side of the permission gate"}

func approvalActions() []*Action {
	token := Bind(Approval, "token", workspace.TierRead, "", "Create the approver token for harnesses you own (your terminal only)", gate.Token)
	token.Human = true
	return []*Action{token}
}
