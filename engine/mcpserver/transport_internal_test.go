package mcpserver

import (
	"bufio"
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// decode sorts every line into what the server answers it with, and
// builds the SDK's message for the rest.
func TestDecodeClassifiesLines(t *testing.T) {
	for _, tc := range []struct {
		line, id, why string
		kind          string // call, notification or response, for a message
	}{
		{line: `this is not json`, why: "parse"},
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping"`, why: "parse"},
		{line: `[1,`, why: "parse"},
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping"} x`, why: "parse"},
		{line: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, why: "batches are not part of MCP; send one message per line"},
		{line: `"ping"`, why: "a message is a JSON object"},
		{line: `null`, why: "a message is a JSON object"},
		{line: `{"jsonrpc":2,"id":1,"method":"ping"}`, id: "1", why: `"jsonrpc" must be "2.0"`},
		{line: `{"id":1,"method":"ping"}`, id: "1", why: `"jsonrpc" must be "2.0"`},
		{line: `{"jsonrpc":"1.0","id":7,"method":"ping"}`, id: "7", why: `"jsonrpc" must be "2.0"`},
		{line: `{"jsonrpc":"2.0","id":8}`, id: "8", why: `a message needs "method" (a request or notification) or "result"/"error" (a response)`},
		// Keys match exactly, as the SDK's decoder matches them.
		{line: `{"jsonrpc":"2.0","id":8,"Method":"ping"}`, id: "8", why: `a message needs "method" (a request or notification) or "result"/"error" (a response)`},
		{line: `{"jsonrpc":"2.0","id":"x","method":""}`, id: `"x"`, why: `"method" is empty`},
		{line: `{"jsonrpc":"2.0","id":"x","method":5}`, id: `"x"`, why: `"method" must be a string`},
		{line: `{"jsonrpc":"2.0","id":true,"method":"ping"}`, why: `"id" must be a string or a number`},
		{line: `{"jsonrpc":"2.0","id":{},"method":"ping"}`, why: `"id" must be a string or a number`},
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, kind: "call"},
		{line: `{"jsonrpc":"2.0","id":"a","method":"ping"}`, kind: "call"},
		{line: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, kind: "notification"},
		{line: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, kind: "notification"},
		{line: `{"jsonrpc":"2.0","id":3,"result":{}}`, kind: "response"},
		{line: `{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}`, kind: "response"},
	} {
		msg, id, why := decode([]byte(tc.line))
		kind := ""
		switch m := msg.(type) {
		case *jsonrpc.Request:
			kind = "notification"
			if m.IsCall() {
				kind = "call"
			}
		case *jsonrpc.Response:
			kind = "response"
		}
		if string(id) != tc.id || why != tc.why || kind != tc.kind {
			t.Errorf("decode(%s) = %s, %s, %q; want %s, %s, %q", tc.line, kind, id, why, tc.kind, tc.id, tc.why)
		}
	}
}

// A request is what the SDK's own decoder makes of the same line.
func TestDecodeIsTheSDKs(t *testing.T) {
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"workspace_inspect","arguments":{"action":"read","path":"a b.txt"}}}`,
		`{"jsonrpc":"2.0","id":"k-9","method":"ping","params":null}`,
		`{"jsonrpc":"2.0","id":2.0,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"method":"ping","id":12,"jsonrpc":"2.0","params":{"é":"\u00e9"}}`,
	} {
		got, _, why := decode([]byte(line))
		want, err := jsonrpc.DecodeMessage([]byte(line))
		if why != "" || err != nil {
			t.Fatalf("%s: %q, %v", line, why, err)
		}
		g, w := got.(*jsonrpc.Request), want.(*jsonrpc.Request)
		if g.ID != w.ID || g.Method != w.Method || string(g.Params) != string(w.Params) {
			t.Errorf("%s: decoded %+v, the SDK %+v", line, g, w)
		}
	}
}

// A line over the limit is dropped whole, and the next one is read.
func TestReadLineDropsALongLine(t *testing.T) {
	r := bufio.NewReaderSize(strings.NewReader(strings.Repeat("x", 100)+"\nshort\nlast"), 16)
	for _, want := range []struct {
		line string
		long bool
	}{{"", true}, {"short\n", false}, {"last", false}} {
		line, long, _ := readLine(r, 50)
		if string(line) != want.line || long != want.long {
			t.Errorf("readLine = %q, %v; want %q, %v", line, long, want.line, want.long)
		}
	}
	if line, long, _ := readLine(bufio.NewReaderSize(strings.NewReader(strings.Repeat("y", 50)+"\n"), 16), 50); len(line) != 51 || long {
		t.Errorf("a line of exactly the limit: %d bytes, long %v", len(line), long)
	}
}

// A kept goroutine runs one job at a time: a job sent while every kept
// goroutine is busy gets a goroutine of its own, and both run at once.
func TestWarmRunsConcurrently(t *testing.T) {
	w := warm{jobs: make(chan func())}
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		w.run(func() { close(started); <-release })
		close(done)
	}()
	<-started
	ran := false
	w.run(func() { ran = true }) // would block forever if it waited for the first
	close(release)
	<-done
	if !ran {
		t.Fatal("the second job did not run")
	}
}

// Calls one after another reuse the kept goroutines instead of adding one
// each, and a panic comes back to the caller.
func TestWarmKeepsGoroutinesAndPanics(t *testing.T) {
	w := warm{jobs: make(chan func())}
	w.run(func() {})
	before := runtime.NumGoroutine()
	for range 100 {
		w.run(func() {})
	}
	// A call may find its predecessor's goroutine not yet back at the
	// queue and start one more (kept too); a goroutine per call is the bug.
	if after := runtime.NumGoroutine(); after > before+10 {
		t.Errorf("100 calls in turn left %d goroutines, %d before", after, before)
	}
	defer func() {
		if p := recover(); p != "boom" {
			t.Errorf("recovered %v, want the job's panic", p)
		}
	}()
	w.run(func() { panic("boom") })
	t.Error("run returned after its job panicked")
}

// A response counts as answered even when its context has ended and it is
// not written: the drain at the end of stdin must not wait for it.
func TestResponseOnEndedContextIsAnswered(t *testing.T) {
	var out strings.Builder
	st := Transport(strings.NewReader(""), &out).(*stdio)
	c, _ := st.Connect(context.Background())
	st.inflight.add(1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	id, _ := jsonrpc.MakeID(float64(1))
	if err := c.Write(ctx, &jsonrpc.Response{ID: id, Result: []byte(`{}`)}); err == nil {
		t.Error("a write on an ended context succeeded")
	}
	if st.inflight.n != 0 || out.Len() != 0 {
		t.Errorf("in flight %d, written %q", st.inflight.n, out.String())
	}
	if err := c.Write(context.Background(), &jsonrpc.Response{ID: id, Result: []byte(`{}`)}); err != nil || !strings.Contains(out.String(), `"id":1`) {
		t.Errorf("a live write: %v, %q", err, out.String())
	}
}
