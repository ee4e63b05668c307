// Package agenttest is a scripted OpenAI-compatible chat-completions
// server for tests: it answers turn by turn from a script and checks every
// request it receives (each tool result answers a tool call it issued, in
// that request, exactly once; tool schemas are present; kept fields come
// back; the messages fit the pass budget). Tests of aw's sub-agents run it
// on loopback.
package agenttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/agent"
)

// Call is one tool call a turn issues. Args is sent verbatim (it may be
// malformed on purpose).
type Call struct {
	Tool string `json:"tool"`
	Args string `json:"args"`
}

// Turn is one scripted model reply.
type Turn struct {
	Calls   []Call `json:"calls,omitempty"`
	Content string `json:"content,omitempty"`
	// Check, when set, inspects the request this turn answers.
	Check func(t testing.TB, req *agent.ChatRequest, raw []byte) `json:"-"`
	// Expect, when set, is text the request this turn answers must hold
	// (a check a script in a file can carry).
	Expect string `json:"expect,omitempty"`
	// Hang keeps the request open until the client goes away (a test
	// kills the process waiting on it).
	Hang bool `json:"hang,omitempty"`
	// DelayMs holds the reply back this long (a test acts meanwhile).
	DelayMs int `json:"delayMs,omitempty"`
}

// Model is the server.
type Model struct {
	*httptest.Server
	t        testing.TB
	mu       sync.Mutex
	script   []Turn
	next     int
	issued   map[string]bool
	Requests []*agent.ChatRequest
	// Auth is the Authorization header of the last request.
	Auth string
	// Waiting is closed when a Hang turn's request arrives.
	Waiting chan struct{}
	// After, when set, runs when a reply has been written (benchmarks
	// mark the time the loop got it).
	After func()
	// Before, when set, runs when a request arrives.
	Before func()
}

// New starts a model that answers with script, in order.
func New(t testing.TB, script ...Turn) *Model {
	m := &Model{t: t, script: script, issued: map[string]bool{}, Waiting: make(chan struct{})}
	m.Server = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.Close)
	return m
}

// BaseURL is what agents.baseUrl should be.
func (m *Model) BaseURL() string { return m.URL + "/v1" }

// Served is how many requests were answered.
func (m *Model) Served() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.next
}

func (m *Model) serve(w http.ResponseWriter, r *http.Request) {
	if m.Before != nil {
		m.Before()
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away mid-request (a test killed it)
	}
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		m.t.Errorf("model: unexpected %s %s", r.Method, r.URL.Path)
		http.Error(w, "not found", 404)
		return
	}
	var req agent.ChatRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		m.t.Errorf("model: request does not parse: %v", err)
		http.Error(w, "bad request", 400)
		return
	}
	m.mu.Lock()
	if n := m.next; n < len(m.script) && m.script[n].Hang {
		m.next++
		m.mu.Unlock()
		close(m.Waiting)
		<-r.Context().Done()
		return
	}
	defer m.mu.Unlock()
	m.Auth = r.Header.Get("Authorization")
	m.Requests = append(m.Requests, &req)
	m.checkProtocol(&req, raw)
	if m.next >= len(m.script) {
		http.Error(w, `{"error":{"message":"script exhausted"}}`, 500)
		return
	}
	turn := m.script[m.next]
	n := m.next
	m.next++
	if turn.Check != nil {
		turn.Check(m.t, &req, raw)
	}
	if turn.Expect != "" && !strings.Contains(string(raw), turn.Expect) {
		m.t.Errorf("model: request %d does not hold %q", n, turn.Expect)
	}
	if turn.DelayMs > 0 {
		m.mu.Unlock()
		time.Sleep(time.Duration(turn.DelayMs) * time.Millisecond)
		m.mu.Lock()
	}
	var calls []map[string]any
	for i, c := range turn.Calls {
		// Ids with characters a careless client might rewrite.
		id := fmt.Sprintf("call_%d.%d:Zq+/=", n, i)
		m.issued[id] = true
		calls = append(calls, map[string]any{"id": id, "type": "function", "function": map[string]any{"name": c.Tool, "arguments": c.Args}})
	}
	msg := map[string]any{
		"role": "assistant", "content": turn.Content,
		"reasoning_content": fmt.Sprintf("thinking about turn %d", n),
		"provider_extra":    map[string]any{"turn": n},
	}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
		if turn.Content == "" {
			msg["content"] = nil
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion",
		"choices":            []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}},
		"usage":              map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
		"system_fingerprint": "fp_test",
	})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	if m.After != nil {
		m.After()
	}
}

// checkProtocol: every tool message answers an id this server issued and
// that an earlier assistant message of the same request carries, once;
// every assistant tool call is answered; assistant messages bring back
// the fields aw does not know.
func (m *Model) checkProtocol(req *agent.ChatRequest, raw []byte) {
	open := map[string]bool{}
	answered := map[string]bool{}
	for i, msg := range req.Messages {
		switch msg.Role {
		case "assistant":
			for _, c := range msg.ToolCalls {
				open[c.ID] = true
			}
			if _, ok := msg.Extra["provider_extra"]; !ok {
				m.t.Errorf("model: assistant message %d lost the field provider_extra", i)
			}
		case "tool":
			switch {
			case !m.issued[msg.ToolCallID]:
				m.t.Errorf("model: tool result %d answers %q, an id never issued", i, msg.ToolCallID)
			case !open[msg.ToolCallID]:
				m.t.Errorf("model: tool result %d answers %q, which no earlier message of this request called", i, msg.ToolCallID)
			case answered[msg.ToolCallID]:
				m.t.Errorf("model: tool call %q answered twice", msg.ToolCallID)
			}
			answered[msg.ToolCallID] = true
		}
	}
	for id := range open {
		if !answered[id] {
			m.t.Errorf("model: tool call %q was never answered", id)
		}
	}
	total := 0
	for _, msg := range req.Messages {
		total += len(msg.Content)
	}
	if total > agent.PassBudgetChars {
		m.t.Errorf("model: the request's messages hold %d characters, over the pass budget of %d", total, agent.PassBudgetChars)
	}
	if strings.Contains(string(raw), "reasoning_content") {
		m.t.Errorf("model: the request sends reasoning back to the model")
	}
	for _, tool := range req.Tools {
		if tool.Type != "function" || tool.Function.Name == "" || tool.Function.Parameters["type"] != "object" {
			m.t.Errorf("model: tool definition without a schema: %+v", tool)
		}
	}
}

// ToolNames lists the tools a request offered.
func ToolNames(req *agent.ChatRequest) []string {
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// Args builds a call's JSON arguments.
func Args(v map[string]any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}
