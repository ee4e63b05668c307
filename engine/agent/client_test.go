package agent

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMessageKeepsWhatItDoesNotKnow(t *testing.T) {
	for _, tc := range []struct{ raw, content, reasoning string }{
		{`{"role":"assistant","content":null,"reasoning":"r1","x_sig":{"a":1},"tool_calls":[{"id":"call ID/=+","type":"function","function":{"name":"workspace_inspect","arguments":"{bad"}}]}`, "", "r1"},
		{`{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"reasoning_content":"r2","x_sig":"s"}`, "ab", "r2"},
	} {
		var m Message
		if err := json.Unmarshal([]byte(tc.raw), &m); err != nil {
			t.Fatalf("%s: %v", tc.raw, err)
		}
		if m.Content != tc.content || m.Reasoning != tc.reasoning || m.Extra["x_sig"] == nil {
			t.Errorf("%s: got %+v", tc.raw, m)
		}
		out, _ := json.Marshal(m)
		if !strings.Contains(string(out), `"x_sig"`) || strings.Contains(string(out), "reasoning") {
			t.Errorf("sent back as %s", out)
		}
		if len(m.ToolCalls) == 1 && (m.ToolCalls[0].ID != "call ID/=+" || m.ToolCalls[0].Function.Arguments != "{bad") {
			t.Errorf("tool call changed: %+v", m.ToolCalls[0])
		}
	}
	var m Message
	if err := json.Unmarshal([]byte(`{"role":"assistant","content":7}`), &m); err == nil {
		t.Error("a number as content was accepted")
	}
}

func TestFinalReport(t *testing.T) {
	r := final("Done.\n```json\n{\"summary\":\"s\",\"evidence\":[\"e\"],\"remaining_work\":[\"w\"],\"confidence\":\"medium\"}\n```")
	if r.Summary != "s" || r.Confidence != "medium" || len(r.Evidence) != 1 || len(r.RemainingWork) != 1 {
		t.Errorf("fenced report: %+v", r)
	}
	r = final(`{"summary":"s","confidence":"certain"}`)
	if r.Confidence != "unknown" {
		t.Errorf("confidence outside low|medium|high: %+v", r)
	}
	if r := final("just words {not json}"); r.Summary != "just words {not json}" || r.Confidence != "unknown" {
		t.Errorf("plain text: %+v", r)
	}
}

func TestFitBudgetCompactsOldestToolResultsFirst(t *testing.T) {
	big := func(n int) string {
		raw, _ := json.Marshal(map[string]any{"protocol": "agentic-workspace/v1", "ok": true, "operation": "inspect.read", "summary": "read", "retention": map[string]any{"importance": "normal"}, "data": map[string]any{"content": strings.Repeat("x", n)}})
		return string(raw)
	}
	msgs := []Message{{Role: "system", Content: "s"}, {Role: "tool", Content: big(PassBudgetChars / 2)}, {Role: "tool", Content: big(PassBudgetChars / 2)}, {Role: "tool", Content: big(1000)}}
	fitBudget(msgs)
	total := 0
	for _, m := range msgs {
		total += len(m.Content)
	}
	if total > PassBudgetChars || len(msgs[1].Content) > compactedChars || len(msgs[2].Content) < PassBudgetChars/2 || len(msgs[3].Content) < 1000 {
		t.Errorf("after fitting: %d chars; sizes %d %d %d", total, len(msgs[1].Content), len(msgs[2].Content), len(msgs[3].Content))
	}
}
