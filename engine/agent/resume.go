package agent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentic-workspace/aw/engine/envelope"
)

// readEvents reads a run's transcript. A last line cut short by a crash
// is dropped (it was never synced, so nothing acted on it).
func readEvents(path string) ([]Event, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, envelope.Errorf(envelope.Internal, "cannot read the run's transcript: %v", err)
	}
	defer f.Close()
	var out []Event
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			return out, nil // an unterminated last line is a cut write
		}
		if err != nil {
			return nil, envelope.Errorf(envelope.Internal, "cannot read the run's transcript: %v", err)
		}
		var ev Event
		if json.Unmarshal(line, &ev) != nil {
			continue
		}
		out = append(out, ev)
	}
}

// replay is the start of pass: fresh from the saved state, or, when the
// run resumed inside this pass, rebuilt from the transcript's events of it
// (the saved state is the one the pass started from, so the brief is the
// same): the replies become assistant messages, the results tool
// messages, the counters and the ledger move on as they did, and the
// calls of the last reply that never got a result are left pending.
func (l *loop) replay(pass int) *passState {
	st := l.st
	ps := &passState{
		msgs: []Message{{Role: "system", Content: l.system()}, {Role: "user", Content: l.brief(pass)}},
		sum:  PassSummary{Pass: pass, Calls: []string{}, Results: []string{}},
	}
	events := l.events
	l.events = nil // only the first pass after a resume replays
	answered := map[string]bool{}
	var last []ToolCall
	for _, ev := range events {
		if ev.Pass != pass {
			continue
		}
		switch ev.Type {
		case "message":
			var d struct {
				Text  string `json:"text"`
				Inbox int64  `json:"inbox"`
			}
			if json.Unmarshal(ev.Data, &d) == nil {
				st.Messages = append(st.Messages, d.Text)
				st.InboxBytes = d.Inbox
				ps.msgs = append(ps.msgs, sentMessage(d.Text))
			}
		case "reply":
			var d struct {
				Message Message `json:"message"`
			}
			if json.Unmarshal(ev.Data, &d) != nil {
				continue
			}
			m := d.Message
			m.Role = "assistant"
			st.Requests++
			ps.round = ev.Round
			ps.msgs = append(ps.msgs, m)
			if t := strings.TrimSpace(m.Content); t != "" {
				ps.words = append(ps.words, t)
			}
			last = m.ToolCalls
			if len(last) == 0 {
				ps.final = &m
			}
		case "tool_result":
			var d struct {
				ToolCallID string          `json:"toolCallId"`
				Tool       string          `json:"tool"`
				Action     string          `json:"action"`
				Counted    bool            `json:"counted"`
				Envelope   json.RawMessage `json:"envelope"`
			}
			if json.Unmarshal(ev.Data, &d) != nil {
				continue
			}
			answered[d.ToolCallID] = true
			if d.Counted {
				st.ToolCalls++
			}
			var env envelope.Envelope
			_ = json.Unmarshal(d.Envelope, &env)
			l.note(&env)
			ps.msgs = append(ps.msgs, Message{Role: "tool", ToolCallID: d.ToolCallID, Content: string(d.Envelope)})
			l.record(ps, d.Tool, d.Action, &env, d.Envelope)
		}
	}
	for _, c := range last {
		if !answered[c.ID] {
			ps.pending = append(ps.pending, c)
		}
	}
	return ps
}

// sentMessage is how an instruction sent with `aw agent send` reaches the
// model.
func sentMessage(text string) Message {
	return Message{Role: "user", Content: "New instructions from the agent that started this run (they add to the objective):\n" + text}
}

// takeMessages reads what was sent to the run since it last looked
// (inbox.jsonl past InboxBytes) into the pass, and records each in the
// transcript, synced: a resumed pass replays them.
func (l *loop) takeMessages(pass, round int, ps *passState) error {
	st := l.st
	path := inboxPath(l.ws, st.RunID)
	fi, err := os.Stat(path)
	if err != nil || fi.Size() <= st.InboxBytes {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if _, err := f.Seek(st.InboxBytes, io.SeekStart); err != nil {
		return nil
	}
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return nil // a line still being written is read next round
		}
		st.InboxBytes += int64(len(line))
		var text string
		if json.Unmarshal(line, &text) != nil {
			continue
		}
		st.Messages = append(st.Messages, text)
		ps.msgs = append(ps.msgs, sentMessage(text))
		if err := l.tr.append("message", pass, round, map[string]any{"text": text, "inbox": st.InboxBytes}, syncNow); err != nil {
			return err
		}
	}
}

// sentPart is the brief's part for the instructions sent before the pass.
func sentPart(msgs []string) string {
	if len(msgs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nInstructions sent since the run started (they add to the objective; the last one counts most):\n")
	for i, m := range msgs {
		fmt.Fprintf(&b, "%d. %s\n", i+1, envelope.Clip(m, 4000))
	}
	return b.String()
}
