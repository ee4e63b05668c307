package dispatch

import (
	"github.com/agentic-workspace/aw/engine/ask"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Ask is aw's own noun for questions to the human (`aw ask`, `aw
// answer`): not a workspace_* tool. A sub-agent's run is offered ask as
// its ask_user tool.
var Ask = &Tool{Noun: "ask", Short: "Ask the human a question and wait for the answer"}

// ask is read tier (it changes nothing in the workspace; the question
// record is aw's bookkeeping); answer is a human verb, like approval
// accept.
func askActions() []*Action {
	answer := Bind(Ask, "answer", workspace.TierWrite, "", "Answer a pending question: options by label or number, free text, or skip (a human verb; no id: list the pending ones)", ask.Answer).Does(Writes)
	answer.Human = true
	return []*Action{
		Bind(Ask, "ask", workspace.TierRead, "", "Ask the human a question and wait for the answer (no human reachable: fails at once)", ask.Ask),
		answer,
	}
}
