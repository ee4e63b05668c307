package mcpserver

// Questions for the human (aw ask, a sub-agent's ask_user) are offered
// through the client while a call that waits on a run runs (the rows marked
// AwaitsRun: agent run and wait, research deep), when the client supports
// elicitation and its protocol lets the server send requests during a call
// (before 2026-07-28; later versions return input requests instead, which a
// call that waits on a run cannot). The server then records itself as a
// question channel, so a question asked elsewhere is asked rather than
// refused for want of a human. Unlike approvals, no setting is needed: an
// answer grants nothing, it only informs the asker.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentic-workspace/aw/engine/ask"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/schema"
	"github.com/agentic-workspace/aw/engine/workspace"
	"github.com/agentic-workspace/aw/output/visible"
)

// questionPoll is how often a running call looks for new questions.
const questionPoll = 200 * time.Millisecond

// maxQuestionForms bounds the forms shown for one question when the answers
// given do not fit it.
const maxQuestionForms = 3

// asksDuringCalls reports a client the server may send an elicitation to
// while one of its calls runs.
func asksDuringCalls(req *mcp.CallToolRequest) bool {
	if !canElicit(req) || req.Session == nil {
		return false
	}
	p := req.Session.InitializeParams()
	return p != nil && p.ProtocolVersion < "2026-07-28"
}

// openChannel records the server as a question channel, once.
func (s *Server) openChannel(ws *workspace.Workspace) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closeChannel != nil {
		return
	}
	if c, err := ask.OpenChannel(ws, "mcp"); err == nil {
		s.closeChannel = c
	}
}

// offerQuestions offers each pending question once, one form at a time,
// until stop is called (when the call returns).
func (s *Server) offerQuestions(ctx context.Context, ss *mcp.ServerSession, ws *workspace.Workspace) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(questionPoll)
		defer tick.Stop()
		for {
			for _, q := range ask.Open(ws) {
				if s.claim(q.ID) {
					s.askHuman(ctx, ss, ws, &q)
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() { cancel(); <-done }
}

// claim reports whether the question was not offered yet, and marks it.
func (s *Server) claim(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.offered[id] {
		return false
	}
	s.offered[id] = true
	return true
}

// askHuman shows one question as a form and records what the human
// answered: accept answers it, decline skips it, a dismissed form leaves it
// pending (aw answer or /answer can still answer it).
func (s *Server) askHuman(ctx context.Context, ss *mcp.ServerSession, ws *workspace.Workspace, q *ask.Question) {
	note := ""
	for range maxQuestionForms {
		res, err := ss.Elicit(ctx, questionForm(q, note))
		if err != nil || res.Action == "cancel" {
			return
		}
		var choices []string
		text := ""
		if res.Action == "accept" {
			choices, text = formAnswer(q, res.Content)
		}
		_, err = ask.Reply(ws, q.ID, choices, text, res.Action == "decline")
		var e *envelope.Error
		if err == nil || !errors.As(err, &e) || e.Code != envelope.InvalidInput {
			return
		}
		note = "That answer did not fit: " + e.Message + "\n\n"
	}
}

// questionForm is the elicitation for q: one choice (or a yes/no per
// option for several), a text field where typed answers are accepted.
func questionForm(q *ask.Question, note string) *mcp.ElicitParams {
	var msg strings.Builder
	msg.WriteString(note)
	// The agent wrote these: shown escaped, as on a terminal.
	fmt.Fprintf(&msg, "The agent asks (%s):\n\n%s\n", q.ID, visible.Line(q.Question))
	if q.Context != "" {
		fmt.Fprintf(&msg, "\n%s\n", visible.Block(q.Context))
	}
	msg.WriteString("\nAnswer here, decline to skip it (the agent proceeds on a stated assumption), or dismiss this form to answer later with `aw answer`.")
	props := schema.Schema{}
	var required []string
	switch {
	case len(q.Options) > 0 && q.MultiSelect:
		for i, o := range q.Options {
			props[fmt.Sprintf("option%d", i+1)] = schema.Schema{"type": "boolean", "title": visible.Line(o.Label), "description": visible.Line(o.Description)}
		}
	case len(q.Options) > 0:
		labels := make([]any, len(q.Options))
		for i, o := range q.Options {
			labels[i] = o.Label
		}
		props["choice"] = schema.Schema{"type": "string", "title": "Your choice", "enum": labels}
		if !q.AllowFreeText {
			required = append(required, "choice")
		}
	}
	if q.AllowFreeText {
		props["text"] = schema.Schema{"type": "string", "title": "Your answer", "description": "in your own words", "maxLength": 8000}
		if len(q.Options) == 0 {
			required = append(required, "text")
		}
	}
	form := schema.Schema{"type": "object", "properties": props}
	if len(required) > 0 {
		form["required"] = required
	}
	return &mcp.ElicitParams{Mode: "form", Message: msg.String(), RequestedSchema: form}
}

// formAnswer reads the form's content back into choices and text.
func formAnswer(q *ask.Question, content map[string]any) (choices []string, text string) {
	if c, ok := content["choice"].(string); ok && c != "" {
		choices = append(choices, c)
	}
	for i, o := range q.Options {
		if yes, _ := content[fmt.Sprintf("option%d", i+1)].(bool); yes {
			choices = append(choices, o.Label)
		}
	}
	text, _ = content["text"].(string)
	return choices, strings.TrimSpace(text)
}
