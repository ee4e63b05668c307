package dispatch

import (
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/prompt"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Approval is aw's own noun for the human's side of the gate.
var Approval = &Tool{Noun: "approval", Short: "The human's side of the permission gate"}

// Prompt is aw's own noun for the prompt preprocessor a chat harness pipes
// every user message through. It is a noun of its own, not an approval verb,
// because most messages decide nothing.
var Prompt = &Tool{Noun: "prompt", Short: "Preprocess a user message: /accept, /deny and the permission-mode hint"}

// Deciding changes the gate's records, and the token is a file: the write
// tier, like every action that changes state (--tier read changes nothing).
func approvalActions() []*Action {
	token := Bind(Approval, "token", workspace.TierWrite, "", "Create the approver token for harnesses you own (your terminal only)", gate.Token).Does(Writes | Destroys)
	token.Human = true
	accept := Bind(Approval, "accept", workspace.TierWrite, "", "Approve a pending approval or plan (a human verb; default: the newest pending)", gate.Accept).Does(Writes | Idempotent)
	accept.Human = true
	deny := Bind(Approval, "deny", workspace.TierWrite, "", "Deny a pending approval or plan (a human verb; default: the newest pending)", gate.Deny).Does(Writes | Idempotent)
	deny.Human = true
	return []*Action{
		Bind(Approval, "list", workspace.TierRead, "", "List approval and plan records, newest first (default: pending and approved)", gate.ListApprovals),
		Bind(Approval, "show", workspace.TierRead, "", "Show one record and what a human deciding it is shown", gate.ShowApproval),
		accept, deny, token,
		// Deciding inside a message needs the approver token; the engine
		// checks it. It may decide a record: the write tier.
		Bind(Prompt, "preprocess", workspace.TierWrite, "", "Rewrite one user message: decide /accept or /deny, answer /answer, append the <agentic-mode> block", prompt.Preprocess).Does(Writes),
	}
}
