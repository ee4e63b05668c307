package debug

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/google/go-dap"

	"github.com/agentic-workspace/aw/engine/envelope"
)

// message is one Debug Adapter Protocol message, undecoded past what
// routing needs; bodies are decoded into go-dap's types by the caller.
type message struct {
	Seq        int             `json:"seq"`
	Type       string          `json:"type"` // request, response, event
	Command    string          `json:"command,omitempty"`
	Event      string          `json:"event,omitempty"`
	RequestSeq int             `json:"request_seq,omitempty"`
	Success    bool            `json:"success,omitempty"`
	Message    string          `json:"message,omitempty"`
	Body       json.RawMessage `json:"body,omitempty"`
	Arguments  any             `json:"arguments,omitempty"`
}

// client speaks DAP to one adapter: requests with their responses, and
// every event handed to onEvent in order.
type client struct {
	w       io.Writer
	wmu     sync.Mutex
	mu      sync.Mutex
	seq     int
	pending map[int]chan message
	closed  chan struct{}
	err     error
}

func newClient(r io.Reader, w io.Writer, onEvent func(message)) *client {
	c := &client{w: w, pending: map[int]chan message{}, closed: make(chan struct{})}
	go c.read(bufio.NewReader(r), onEvent)
	return c
}

func (c *client) read(r *bufio.Reader, onEvent func(message)) {
	var err error
	for {
		var raw []byte
		raw, err = dap.ReadBaseMessage(r)
		if err != nil {
			break
		}
		var m message
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		switch m.Type {
		case "response":
			c.mu.Lock()
			ch := c.pending[m.RequestSeq]
			delete(c.pending, m.RequestSeq)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case "event":
			onEvent(m)
		case "request":
			// Reverse requests (runInTerminal, startDebugging): aw has no
			// terminal to give and starts no second session.
			c.send(message{Type: "response", RequestSeq: m.Seq, Command: m.Command, Success: false, Message: "aw does not support " + m.Command})
		}
	}
	c.mu.Lock()
	c.err = err
	for seq, ch := range c.pending {
		close(ch)
		delete(c.pending, seq)
	}
	c.mu.Unlock()
	close(c.closed)
}

func (c *client) send(m message) (int, chan message, error) {
	c.mu.Lock()
	select {
	case <-c.closed:
		c.mu.Unlock()
		return 0, nil, fmt.Errorf("the debug adapter closed its connection")
	default:
	}
	c.seq++
	m.Seq = c.seq
	var ch chan message
	if m.Type == "request" {
		ch = make(chan message, 1)
		c.pending[m.Seq] = ch
	}
	c.mu.Unlock()
	raw, err := json.Marshal(m)
	if err != nil {
		return 0, nil, err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return m.Seq, ch, dap.WriteBaseMessage(c.w, raw)
}

// start sends a request and returns the channel its response arrives on.
func (c *client) start(command string, args any) (chan message, error) {
	_, ch, err := c.send(message{Type: "request", Command: command, Arguments: args})
	return ch, err
}

// await waits for a response and decodes its body into body (may be nil).
func await(ctx context.Context, command string, ch chan message, body any) error {
	select {
	case m, ok := <-ch:
		if !ok {
			return envelope.Errorf(envelope.Internal, "the debug adapter ended before it answered %s; `aw debug status` shows the session", command)
		}
		if !m.Success {
			return envelope.Errorf(envelope.InvalidInput, "the debug adapter refused %s: %s", command, clip(m.Message, 400)).With("command", command)
		}
		if body != nil && len(m.Body) > 0 {
			json.Unmarshal(m.Body, body)
		}
		return nil
	case <-ctx.Done():
		return envelope.Errorf(envelope.Timeout, "the debug adapter did not answer %s in time", command)
	}
}

// request is start and await.
func (c *client) request(ctx context.Context, command string, args, body any) error {
	ch, err := c.start(command, args)
	if err != nil {
		return envelope.Errorf(envelope.Internal, "cannot send %s to the debug adapter: %v", command, err)
	}
	return await(ctx, command, ch, body)
}

func clip(s string, n int) string { return envelope.Clip(s, n) }
