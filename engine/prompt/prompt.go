// Package prompt is aw prompt, the preprocessor a chat harness pipes every
// user message through. The approval commands (/accept, /deny), the mode
// block and the pass-through commands are the gate's (engine/gate
// prompt.go); /answer, which answers a question an agent asked with aw
// ask, is handled here, above both the gate and the questions.
package prompt

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentic-workspace/aw/engine/ask"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/workspace"
	"github.com/agentic-workspace/aw/output/visible"
)

// Result is the data of prompt.preprocess: the gate's result, and the
// question /answer answered.
type Result struct {
	gate.PromptResult
	Answer *ask.Question `json:"answer,omitempty"`
}

// Preprocess rewrites one user message. `/answer [question_ID] ANSWER`
// (or `--skip`) records the human's answer, like `aw answer`, and
// replaces the message with an <agentic-answer> block; with no id it
// answers the newest pending question.
func Preprocess(ctx context.Context, ws *workspace.Workspace, req *gate.PromptRequest) (envelope.Envelope, error) {
	word, rest := gate.SplitCommand(req.Message)
	if word != "/answer" {
		env, err := gate.Prompt(ctx, ws, req)
		if err != nil {
			return env, err
		}
		env.Data = Result{PromptResult: env.Data.(gate.PromptResult)}
		return env, nil
	}
	if err := gate.RequireHuman(ws, "/answer in `aw prompt`"); err != nil {
		return envelope.Envelope{}, err
	}
	id, line := splitQuestion(rest)
	open := ask.Open(ws)
	if id == "" {
		if len(open) == 0 {
			return envelope.Envelope{}, envelope.Errorf(envelope.NotFound, "no question is pending, so /answer has nothing to answer (a question that timed out can no longer be answered)")
		}
		id = open[len(open)-1].ID
	}
	q, err := ask.AnswerLine(ws, id, line)
	if err != nil {
		return envelope.Envelope{}, err
	}
	var others []string
	for _, o := range open {
		if o.ID != q.ID {
			others = append(others, o.ID)
		}
	}
	env, err := gate.Prompt(ctx, ws, &gate.PromptRequest{Message: block(q, others)})
	if err != nil {
		return envelope.Envelope{}, err
	}
	res := Result{PromptResult: env.Data.(gate.PromptResult), Answer: q}
	res.Command = "answer"
	env = envelope.New("", fmt.Sprintf("Question %s %s; the message is replaced by an <agentic-answer> block.", q.ID, q.Status), res)
	env.Fact("question %s %s", q.ID, q.Status)
	return env, nil
}

// splitQuestion takes a question_ id off the front of rest.
func splitQuestion(rest string) (id, line string) {
	t := strings.TrimSpace(rest)
	first, after, _ := strings.Cut(t, " ")
	if strings.HasPrefix(first, "question_") {
		return first, strings.TrimSpace(after)
	}
	return "", t
}

// block tells the model what the human answered.
func block(q *ask.Question, others []string) string {
	var b strings.Builder
	b.WriteString("<agentic-answer>\n")
	asked := visible.Line(envelope.Clip(q.Question, 200))
	switch q.Status {
	case ask.Skipped:
		fmt.Fprintf(&b, "The user skipped question %s (%s): proceed on a stated assumption, say which, and do not ask again.\n", q.ID, asked)
	default:
		fmt.Fprintf(&b, "The user answered question %s (%s):", q.ID, asked)
		if len(q.Choices) > 0 {
			fmt.Fprintf(&b, " chose %s", strings.Join(quoted(q.Choices), ", "))
		}
		if q.Text != "" {
			if len(q.Choices) > 0 {
				b.WriteString(" and")
			}
			fmt.Fprintf(&b, " wrote %q", q.Text)
		}
		b.WriteString(".\nIf a call is waiting on this question it returns the answer now; otherwise act on it.\n")
	}
	if len(others) > 0 {
		fmt.Fprintf(&b, "Still pending: %s.\n", strings.Join(others, ", "))
	}
	b.WriteString("</agentic-answer>\n")
	return b.String()
}

func quoted(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
