package mcpserver

import "testing"

// check sorts every line into what the server answers it with.
func TestCheckClassifiesLines(t *testing.T) {
	for _, tc := range []struct {
		line, id, why string
		request       bool
	}{
		{line: `this is not json`, why: "parse"},
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping"`, why: "parse"},
		{line: `[1,`, why: "parse"},
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping"} x`, why: "parse"},
		{line: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, why: "batches are not part of MCP; send one message per line"},
		{line: `"ping"`, why: "a message is a JSON object"},
		{line: `null`, why: "a message is a JSON object"},
		{line: `{"jsonrpc":2,"id":1,"method":"ping"}`, why: "a message is a JSON object"},
		{line: `{"jsonrpc":"1.0","id":7,"method":"ping"}`, id: "7", why: `"jsonrpc" must be "2.0"`},
		{line: `{"jsonrpc":"2.0","id":8}`, id: "8", why: `a message needs "method" (a request or notification) or "result"/"error" (a response)`},
		{line: `{"jsonrpc":"2.0","id":"x","method":""}`, id: `"x"`, why: `"method" is empty`},
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, request: true},
		{line: `{"jsonrpc":"2.0","id":null,"method":"ping"}`},
		{line: `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{line: `{"jsonrpc":"2.0","id":3,"result":{}}`},
	} {
		id, why, request := check([]byte(tc.line))
		if string(id) != tc.id || why != tc.why || request != tc.request {
			t.Errorf("check(%s) = %s, %q, %v; want %s, %q, %v", tc.line, id, why, request, tc.id, tc.why, tc.request)
		}
	}
}
