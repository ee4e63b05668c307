package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
)

// Message is one chat message as the OpenAI chat-completions protocol
// spells it. Fields aw does not know are kept in Extra and sent back as
// they came, so a provider's additions (signatures, annotations) survive a
// round trip.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	Name       string     `json:"name,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// Reasoning is the model's thinking, from "reasoning" or
	// "reasoning_content" (providers use either); it is recorded in the
	// transcript and never sent back to the model.
	Reasoning string                     `json:"-"`
	Extra     map[string]json.RawMessage `json:"-"`
}

var messageKeys = map[string]bool{"role": true, "content": true, "name": true, "tool_calls": true, "tool_call_id": true, "reasoning": true, "reasoning_content": true}

// UnmarshalJSON reads a message, keeping unknown fields; content may be
// null (a reply that only calls tools) or a list of text parts.
func (m *Message) UnmarshalJSON(raw []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return err
	}
	*m = Message{}
	str := func(k string) (string, error) {
		v, ok := fields[k]
		if !ok || string(v) == "null" {
			return "", nil
		}
		var s string
		err := json.Unmarshal(v, &s)
		return s, err
	}
	var err error
	if m.Role, err = str("role"); err != nil {
		return fmt.Errorf("role: %v", err)
	}
	if m.Content, err = contentText(fields["content"]); err != nil {
		return err
	}
	if m.Name, err = str("name"); err != nil {
		return fmt.Errorf("name: %v", err)
	}
	if m.ToolCallID, err = str("tool_call_id"); err != nil {
		return fmt.Errorf("tool_call_id: %v", err)
	}
	if v, ok := fields["tool_calls"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &m.ToolCalls); err != nil {
			return fmt.Errorf("tool_calls: %v", err)
		}
	}
	for _, k := range []string{"reasoning_content", "reasoning"} {
		if s, err := str(k); err == nil && s != "" {
			m.Reasoning = s
		}
	}
	for k, v := range fields {
		if !messageKeys[k] {
			if m.Extra == nil {
				m.Extra = map[string]json.RawMessage{}
			}
			m.Extra[k] = v
		}
	}
	return nil
}

// contentText reads content given as a string, null, or a list of parts
// ({"type":"text","text":...}), joining the text parts.
func contentText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("content is neither text nor a list of parts: %v", err)
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// MarshalJSON writes the message with its kept unknown fields.
func (m Message) MarshalJSON() ([]byte, error) {
	type plain Message
	raw, err := json.Marshal(plain(m))
	if err != nil || len(m.Extra) == 0 {
		return raw, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	for k, v := range m.Extra {
		if _, ok := fields[k]; !ok {
			fields[k] = v
		}
	}
	return json.Marshal(fields)
}

// ToolCall is one function call the model asked for. ID is kept exactly
// as the model sent it: the tool result answers that id, byte for byte.
type ToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
		// Arguments is the JSON text the model wrote, which may not parse.
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// ToolDef is one tool offered to the model (OpenAI function calling).
type ToolDef struct {
	Type     string `json:"type"`
	Function struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Parameters  map[string]any `json:"parameters"`
	} `json:"function"`
}

// ChatRequest is the body of POST {baseUrl}/chat/completions.
type ChatRequest struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	Tools    []ToolDef `json:"tools,omitempty"`
}

// ChatResponse is the part of the reply aw reads; Usage is recorded.
type ChatResponse struct {
	ID      string `json:"id"`
	Choices []struct {
		Message      Message `json:"message"`
		FinishReason string  `json:"finish_reason"`
	} `json:"choices"`
	Usage *Usage `json:"usage,omitempty"`
}

// Usage is the token count a provider reports.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Client talks to one OpenAI-compatible chat-completions endpoint.
type Client struct {
	BaseURL string // ".../v1"; the client posts to BaseURL + "/chat/completions"
	APIKey  string // sent as a bearer token when set
	HTTP    *http.Client
}

// maxReplyBytes bounds what aw reads of one model reply.
const maxReplyBytes = 8 << 20

// Complete sends one request and returns the first choice's message.
func (c *Client) Complete(ctx context.Context, req *ChatRequest) (Message, *Usage, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Message{}, nil, err
	}
	url := strings.TrimRight(c.BaseURL, "/") + "/chat/completions"
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Message{}, nil, envelope.Errorf(envelope.InvalidInput, "agents.baseUrl %q is not a usable URL: %v; a human can fix it with `aw config set agents.baseUrl URL`", c.BaseURL, err).With("setting", "agents.baseUrl")
	}
	hreq.Header.Set("Content-Type", "application/json")
	if c.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Minute}
	}
	resp, err := hc.Do(hreq)
	if err != nil {
		return Message{}, nil, envelope.Errorf(envelope.NetworkError, "the model endpoint %s did not answer: %v; check agents.baseUrl and that the server is up", url, err).With("url", url)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxReplyBytes+1))
	if err != nil {
		return Message{}, nil, envelope.Errorf(envelope.NetworkError, "reading the model's reply from %s failed: %v; retry the run", url, err).With("url", url)
	}
	if len(raw) > maxReplyBytes {
		return Message{}, nil, envelope.Errorf(envelope.NetworkError, "the model's reply is over %d bytes; aw stopped reading it", maxReplyBytes).With("url", url)
	}
	if resp.StatusCode/100 != 2 {
		return Message{}, nil, envelope.Errorf(envelope.NetworkError, "the model endpoint %s answered HTTP %d: %s; check agents.model, the API key (agents.apiKeyEnv) and the endpoint", url, resp.StatusCode, envelope.Clip(strings.TrimSpace(string(raw)), 500)).With("url", url).With("status", resp.StatusCode)
	}
	var out ChatResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		return Message{}, nil, envelope.Errorf(envelope.NetworkError, "the model endpoint's reply is not a chat completion (%v): %s", err, envelope.Clip(string(raw), 300)).With("url", url)
	}
	if len(out.Choices) == 0 {
		return Message{}, nil, envelope.Errorf(envelope.NetworkError, "the model endpoint's reply has no choices: %s", envelope.Clip(string(raw), 300)).With("url", url)
	}
	return out.Choices[0].Message, out.Usage, nil
}
