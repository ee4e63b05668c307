package workspace

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/envelope"
)

// Every bounded setting accepts its edge and refuses one step past it,
// naming the key.
func TestValidateBounds(t *testing.T) {
	type edge struct {
		key       string
		set       func(s *Settings, v int)
		ok, wrong int
	}
	edges := []edge{
		{"permissionMode", func(s *Settings, v int) { s.PermissionMode = v }, 0, -1},
		{"permissionMode", func(s *Settings, v int) { s.PermissionMode = v }, 2, 3},
		{"maxToolResultChars", func(s *Settings, v int) { s.MaxToolResultChars = v }, 1000, 999},
		{"read.defaultLines", func(s *Settings, v int) { s.Read.DefaultLines = v }, 1, 0},
		{"list.maxDepth", func(s *Settings, v int) { s.List.MaxDepth = v }, 1, 0},
		{"list.maxEntries", func(s *Settings, v int) { s.List.MaxEntries = v }, 1, 0},
		{"commands.maxSeconds", func(s *Settings, v int) { s.Commands.MaxSeconds = v }, 1, 0},
		{"commands.maxJobs", func(s *Settings, v int) { s.Commands.MaxJobs = v }, 1, 0},
		{"commands.snapshotMaxFiles", func(s *Settings, v int) { s.Commands.SnapshotMaxFiles = v }, 1, 0},
		{"browser.idleSeconds", func(s *Settings, v int) { s.Browser.IdleSeconds = v }, 1, 0},
		{"browser.maxSessions", func(s *Settings, v int) { s.Browser.MaxSessions = v }, 1, 0},
		{"broker.idleSeconds", func(s *Settings, v int) { s.Broker.IdleSeconds = v }, 1, 0},
		{"debug.ttlSeconds", func(s *Settings, v int) { s.Debug.TTLSeconds = v }, 1, 0},
		{"debug.ttlSeconds", func(s *Settings, v int) { s.Debug.TTLSeconds = v }, 1800, 1801},
		{"eval.timeoutSeconds", func(s *Settings, v int) { s.Eval.TimeoutSeconds = v }, 1, 0},
		{"eval.timeoutSeconds", func(s *Settings, v int) { s.Eval.TimeoutSeconds = v }, 3600, 3601},
		{"lsp.diagnosticsWaitMs", func(s *Settings, v int) { s.LSP.DiagnosticsWaitMs = v }, 0, -1},
		{"lsp.diagnosticsWaitMs", func(s *Settings, v int) { s.LSP.DiagnosticsWaitMs = v }, 60000, 60001},
		{"store.retentionDays", func(s *Settings, v int) { s.Store.RetentionDays = v }, 1, 0},
	}
	for _, e := range edges {
		s := Defaults()
		e.set(&s, e.ok)
		if err := s.Validate(); err != nil {
			t.Errorf("%s = %d refused: %v", e.key, e.ok, err)
		}
		s = Defaults()
		e.set(&s, e.wrong)
		var ee *envelope.Error
		err := s.Validate()
		if err == nil {
			t.Errorf("%s = %d accepted", e.key, e.wrong)
			continue
		}
		if ee, _ = err.(*envelope.Error); ee == nil || ee.Details["key"] != e.key {
			t.Errorf("%s = %d: %v names the wrong key", e.key, e.wrong, err)
		}
	}
	for key, set := range map[string]func(s *Settings){
		"commands.interpreter": func(s *Settings) { s.Commands.Interpreter = "bash" },
		"commands.sandbox":     func(s *Settings) { s.Commands.Sandbox = "maybe" },
		"commands.snapshot":    func(s *Settings) { s.Commands.Snapshot = "on" },
		"broker.mode":          func(s *Settings) { s.Broker.Mode = "sometimes" },
		"research.provider":    func(s *Settings) { s.Research.Provider = "bing" },
		"denyPaths":            func(s *Settings) { s.DenyPaths = []string{"[unclosed"} },
	} {
		s := Defaults()
		set(&s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s: %v", key, err)
		}
	}
	for _, ok := range []func(s *Settings){
		func(s *Settings) { s.Commands.Interpreter = "sh" },
		func(s *Settings) { s.Commands.Sandbox = "require" },
		func(s *Settings) { s.Commands.Sandbox = "off" },
		func(s *Settings) { s.Commands.Snapshot = "off" },
	} {
		s := Defaults()
		ok(&s)
		if err := s.Validate(); err != nil {
			t.Errorf("a valid value refused: %v", err)
		}
	}
}

// ParseValue reads each kind of setting from the command line, and names
// the key when a value does not fit.
func TestParseValueKinds(t *testing.T) {
	for _, tc := range []struct {
		key, raw string
		want     any
	}{
		{"maxToolResultChars", " 5000 ", 5000},
		{"tasks.enabled", "true", true},
		{"host.url", "http://127.0.0.1:9", "http://127.0.0.1:9"},
		{"host.url", `"quoted"`, "quoted"},
		{"denyPaths", `[".env*"]`, []string{".env*"}},
		{"denyPaths", `null`, []string{}},
	} {
		k, err := LookupKey(tc.key)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseValue(k, tc.raw)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %q: %#v %v, want %#v", tc.key, tc.raw, got, err, tc.want)
		}
	}
	// A list of richer values reads as its own type, never as strings.
	k, _ := LookupKey("commands.denyPatterns")
	for _, raw := range []string{`["git push --force"]`, `null`} {
		got, err := ParseValue(k, raw)
		v := reflect.ValueOf(got)
		if err != nil || v.Type() != k.typ || v.IsNil() {
			t.Errorf("commands.denyPatterns %s: %#v %v", raw, got, err)
		}
	}
	if _, err := ParseValue(k, `{"not": "a list"}`); envelope.CodeOf(err) != envelope.InvalidInput {
		t.Errorf("commands.denyPatterns from an object: %v", err)
	}
	for key, raw := range map[string]string{"maxToolResultChars": "many", "tasks.enabled": "perhaps", "denyPaths": "a,b"} {
		k, _ := LookupKey(key)
		if _, err := ParseValue(k, raw); envelope.CodeOf(err) != envelope.InvalidInput || !strings.Contains(err.Error(), key) {
			t.Errorf("%s %q: %v", key, raw, err)
		}
	}
}
