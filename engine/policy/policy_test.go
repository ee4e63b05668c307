package policy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/policy/rule"
	"github.com/agentic-workspace/aw/engine/workspace"
)

func TestVerdictShape(t *testing.T) {
	ws := fixture(t)
	ws.Settings.Commands.Interpreter = "sh"
	v := Check(ws, Request{Line: "cd sub && go test ./... > out.txt 2>&1 | tee log.txt"})
	if !v.Allowed || !v.Shell || v.Executable != "go" {
		t.Fatalf("%+v", v)
	}
	wantCmds := [][]string{{"cd", "sub"}, {"go", "test", "./..."}, {"tee", "log.txt"}}
	if !reflect.DeepEqual(v.Commands, wantCmds) {
		t.Errorf("commands %q, want %q", v.Commands, wantCmds)
	}
	// Every path, from every directory the line may be in.
	wantPaths := []string{"sub", "out.txt", "sub/out.txt", "log.txt", "sub/log.txt"}
	if !reflect.DeepEqual(v.Paths, wantPaths) {
		t.Errorf("paths %q, want %q", v.Paths, wantPaths)
	}
	// The same line's cwd is the start: paths resolve from it.
	v = Check(ws, Request{Line: "go test > out.txt", Cwd: "sub"})
	if !v.Allowed || !reflect.DeepEqual(v.Paths, []string{"sub", "sub/out.txt"}) {
		t.Errorf("cwd sub: %+v", v)
	}
	// argv mode returns the argv to run and never a shell.
	ws.Settings.Commands.Interpreter = "none"
	v = Check(ws, Request{Line: `go test -run "A B"`})
	if !v.Allowed || v.Shell || !reflect.DeepEqual(v.Argv, []string{"go", "test", "-run", "A B"}) {
		t.Errorf("argv line: %+v", v)
	}
	raw, _ := json.Marshal(Check(ws, Request{Line: "rm x"}))
	for _, key := range []string{`"allowed":false`, `"reason":"denied-executable"`, `"executable":"rm"`, `"commands":[["rm","x"]]`, `"paths":[]`} {
		if !strings.Contains(string(raw), key) {
			t.Errorf("%s lacks %s", raw, key)
		}
	}
}

func TestAllowNamesRunnerExplicitly(t *testing.T) {
	ws := fixture(t)
	if v := Check(ws, Request{Line: "bash -c 'go test'"}); v.Reason != NestedCommand {
		t.Fatalf("%+v", v)
	}
	ws.Settings.Commands.Allow = append(ws.Settings.Commands.Allow, "bash")
	if v := Check(ws, Request{Line: "bash -c 'go test'"}); !v.Allowed {
		t.Fatalf("bash named in allow: %+v", v)
	}
}

func TestDynamicArgumentsWithoutRules(t *testing.T) {
	ws := fixture(t)
	ws.Settings.Commands.Interpreter = "sh"
	ws.Settings.Commands.Deny = nil
	ws.Settings.Commands.DenyPatterns = nil
	// No argument rules: a value decided at run time is fine for a tool
	// without built-in rules, never for a wrapper or a name.
	if v := Check(ws, Request{Line: "echo $HOME"}); !v.Allowed {
		t.Errorf("echo $HOME without rules: %+v", v)
	}
	if v := Check(ws, Request{Line: "env $X"}); v.Allowed {
		t.Errorf("env $X: %+v", v)
	}
	if v := Check(ws, Request{Line: "$X"}); v.Reason != NotAllowed {
		t.Errorf("$X: %+v", v)
	}
}

func TestDenyPatternForms(t *testing.T) {
	cases := []struct {
		pattern string
		argv    string
		match   bool
	}{
		{"git push --force", "git push --force origin", true},
		{"git push --force", "/usr/bin/GIT push --force", true},
		{"git push --force", "git push origin --force", false},
		{"git push --force", "git push", false},
		{`/^git reset --hard\b/`, "git reset --hard HEAD", true},
		{`/^git reset --hard\b/`, "/usr/bin/git reset --hard", true},
		{`/^git reset --hard\b/`, "git reset --soft", false},
		{`/git\s+push.*--force/`, "git push origin --force", true},
		{`/^NPM publish/i`, "npm publish", true},
		{`git commit -m "a b"`, `git commit -m 'a b' x`, true},
		{`git commit -m "a b"`, `git commit -m a b`, false},
	}
	for _, tc := range cases {
		m, err := rule.Pattern{Pattern: tc.pattern}.Compile()
		if err != nil {
			t.Fatalf("%s: %v", tc.pattern, err)
		}
		argv, _ := rule.Words(tc.argv)
		if m.Match(argv) != tc.match {
			t.Errorf("%s vs %s: match %v", tc.pattern, tc.argv, !tc.match)
		}
	}
}

func TestDenyPatternExamplesAtLoad(t *testing.T) {
	load := func(doc string) error {
		s := workspace.Defaults()
		if err := workspace.DecodeSettings(&s, []byte(doc), "config.json"); err != nil {
			return err
		}
		return s.Validate()
	}
	good := `{"commands": {"denyPatterns": ["git push --force", {"pattern": "/^npm publish\\b/", "match": ["npm publish --tag x"], "noMatch": ["npm publisher"]}]}}`
	if err := load(good); err != nil {
		t.Fatalf("good rules refused: %v", err)
	}
	for doc, want := range map[string]string{
		`{"commands": {"denyPatterns": [{"pattern": "git push --force", "match": ["git push origin --force"]}]}}`: `rule 1 ("git push --force")`,
		`{"commands": {"denyPatterns": ["a", {"pattern": "/^rm/", "noMatch": ["rm -rf x"]}]}}`:                    `rule 2 ("/^rm/")`,
		`{"commands": {"denyPatterns": ["/([a-z]/"]}}`:                                                            "does not compile",
		`{"commands": {"denyPatterns": [""]}}`:                                                                    "empty",
		`{"commands": {"denyPatterns": [{"pattern": "x", "matches": ["x"]}]}}`:                                    "matches",
	} {
		err := load(doc)
		if err == nil || envelope.CodeOf(err) != envelope.InvalidInput || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want INVALID_INPUT naming %s", doc, err, want)
		}
	}
	// The simple form round-trips as strings; examples keep the object.
	var ps rule.Patterns
	if err := json.Unmarshal([]byte(`["git push --force", {"pattern": "/^npm publish\\b/", "match": ["npm publish"]}]`), &ps); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(ps)
	if !strings.HasPrefix(string(raw), `["git push --force",{"pattern":`) {
		t.Errorf("marshalled %s", raw)
	}
	// config set parses the same forms.
	k, _ := workspace.LookupKey("commands.denyPatterns")
	if v, err := workspace.ParseValue(k, `[{"pattern":"git push --force","match":["git push --force"]}]`); err != nil || len(v.(rule.Patterns)) != 1 {
		t.Errorf("ParseValue: %v %v", v, err)
	}
}

func TestEnv(t *testing.T) {
	ws := fixture(t)
	ws.Settings.Commands.InheritEnv = []string{"PATH", "HOME", "LC_*", "LD_PRELOAD", "BASH_ENV", "GIT_PAGER"}
	ws.Settings.Commands.Env = map[string]string{"CI": "1", "PATH": "/opt/bin", "NODE_OPTIONS": "--require x", "BASH_FUNC_f%%": "() { id; }"}
	parent := []string{"PATH=/usr/bin", "HOME=/home/u", "LC_ALL=C", "SECRET=s", "LD_PRELOAD=/evil.so", "BASH_ENV=/evil", "GIT_PAGER=sh", "IFS=x"}
	got := EnvFrom(ws, parent)
	want := []string{"CI=1", "EDITOR=:", "GIT_EDITOR=:", "GIT_PAGER=cat", "GIT_SEQUENCE_EDITOR=:", "HOME=/home/u", "LC_ALL=C", "LESSSECURE=1", "MANPAGER=cat", "PAGER=cat", "PATH=/opt/bin", "VISUAL=:"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("env %q, want %q", got, want)
	}
	for _, v := range Env(ws) {
		if n := strings.SplitN(v, "=", 2)[0]; Stripped(n) && !Pinned(n) {
			t.Errorf("Env kept %s", v)
		}
	}
}

func TestCheckPathAndCwd(t *testing.T) {
	ws := fixture(t)
	if v := Check(ws, Request{Argv: []string{"go", "test"}, Cwd: "../.."}); v.Reason != PathEscape {
		t.Errorf("cwd outside: %+v", v)
	}
	if v := Check(ws, Request{Argv: []string{"go", "test"}, Cwd: "sub"}); !v.Allowed || v.Paths[0] != "sub" {
		t.Errorf("cwd sub: %+v", v)
	}
	if err := os.WriteFile(filepath.Join(ws.Root, "sub", "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkCheckShellLine500 checks a 500-command sh line: every command
// allow-checked, every redirection resolved through the jail.
func BenchmarkCheckShellLine500(b *testing.B) {
	ws := fixture(b)
	ws.Settings.Commands.Interpreter = "sh"
	line := strings.Repeat("go test ./... > build.log 2>&1 && ", 249) + strings.Repeat("grep -rn foo sub | ", 250) + "head -n 5"
	if v := Check(ws, Request{Line: line}); !v.Allowed || len(v.Commands) != 500 {
		b.Fatalf("%d commands, %+v", len(v.Commands), v.Reason+v.Message)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime()
	for i := 0; i < b.N; i++ {
		Check(ws, Request{Line: line})
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
