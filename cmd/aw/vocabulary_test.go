package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// Messages name an action's options in the caller's vocabulary: flags and
// metavariables on the command line (--start, --max-results, PATH),
// argument names over MCP and aw call (start_line, max_results, path). A
// command line quoted in a message stays a command line.
func TestMessagesSpeakTheCallersVocabulary(t *testing.T) {
	dir := mcpWorkspace(t, "")
	c := startMCP(t, dir, clientOpts{})
	cases := []struct {
		name  string
		argv  []string       // the command line
		args  map[string]any // the same call's arguments
		field string         // "summary" or "error.message"
		cli   []string       // in the command line's message
		json  []string       // in the JSON callers' message
	}{
		{"read past the end", []string{"inspect", "read", "README.md", "--start", "99"},
			map[string]any{"action": "read", "path": "README.md", "start_line": 99}, "summary",
			[]string{"read from --start 1 to 3"}, []string{"read from start_line 1 to 3"}},
		{"negative limit", []string{"inspect", "read", "README.md", "--limit", "-1"},
			map[string]any{"action": "read", "path": "README.md", "limit": -1}, "error.message",
			[]string{"--limit -1 is negative"}, []string{"limit -1 is negative"}},
		{"negative start", []string{"inspect", "read", "README.md", "--start", "-2"},
			map[string]any{"action": "read", "path": "README.md", "start_line": -2}, "error.message",
			[]string{"--start -2 is negative"}, []string{"start_line -2 is negative"}},
		{"search cut", []string{"inspect", "search", "line", "--max-results", "1"},
			map[string]any{"action": "search", "pattern": "line", "max_results": 1}, "summary",
			[]string{"stopped at --max-results 1", "narrow the pattern, PATH or --glob"},
			[]string{"stopped at max_results 1", "narrow the pattern, path or glob"}},
		{"a quoted command line", []string{"inspect", "read", "."},
			map[string]any{"action": "read", "path": "."}, "error.message",
			[]string{"`aw inspect list .`"}, []string{"`aw inspect list .`"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg := func(env map[string]any) string { return fmt.Sprint(get(env, "."+tc.field)) }
			cli := msg(runAW(t, dir, nil, tc.argv...).Env)
			raw, _ := json.Marshal(tc.args)
			call := msg(runAW(t, dir, nil, "call", "inspect", string(raw)).Env)
			overMCP := msg(c.call(t, "workspace_inspect", tc.args))
			for _, want := range tc.cli {
				if !strings.Contains(cli, want) {
					t.Errorf("command line: %q lacks %q", cli, want)
				}
			}
			for from, got := range map[string]string{"aw call": call, "MCP": overMCP} {
				for _, want := range tc.json {
					if !strings.Contains(got, want) {
						t.Errorf("%s: %q lacks %q", from, got, want)
					}
				}
				if !strings.Contains(strings.Join(tc.json, " "), "`") && strings.Contains(got, "--") {
					t.Errorf("%s: %q still names a flag", from, got)
				}
			}
		})
	}
}
