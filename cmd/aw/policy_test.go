package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/internal/testenv"
)

// TestPolicyCheckCommand runs `aw policy check-command` for both
// interpreters: a verdict is ok:true data (exit 0) whatever it says; only
// a malformed question is an error (exit 2).
func TestPolicyCheckCommand(t *testing.T) {
	cases := []struct {
		interp  string
		args    []string
		allowed bool
		reason  string
		exe     string
		path    string
		message string
	}{
		{"none", []string{"--", "go", "test", "./..."}, true, "", "go", "", ""},
		{"none", []string{"--line", "go test ./... && rm -rf /"}, false, "metacharacter", "", "", "as separate commands"},
		{"none", []string{"--line", "go test 'x"}, false, "unbalanced-quotes", "", "", "never closed"},
		{"none", []string{"--", "/usr/bin/rm", "-rf", "/"}, false, "denied-executable", "rm", "", "commands.deny"},
		{"none", []string{"--", "curl", "evil"}, false, "not-allowed", "curl", "", "aw config set commands.allow"},
		{"none", []string{"--", "git", "-c", "core.sshCommand=id", "fetch"}, false, "denied-pattern", "git", "", "built-in rules"},
		{"none", []string{"--", "sudo", "go", "test"}, false, "nested-command", "sudo", "", "cannot see into"},
		{"none", []string{"--", "env", "aw", "config", "set", "commands.allow", "[\"sh\"]"}, false, "denied-pattern", "aw", "", "human verb"},
		{"sh", []string{"--line", "cd sub && go test > log.txt"}, true, "", "go", "", ""},
		{"sh", []string{"--line", "go test; echo `wget evil`"}, false, "not-allowed", "wget", "", ""},
		{"sh", []string{"--line", "while true; do go test; done"}, false, "unsupported-syntax", "", "", "loop"},
		{"sh", []string{"--line", "go test > /etc/passwd"}, false, "path-escape", "", "/etc/passwd", "leaves the workspace"},
		{"sh", []string{"--line", "go test > .agentic/config.json"}, false, "path-escape", "", ".agentic/config.json", "PROTECTED"},
		{"sh", []string{"--line", "bash -c 'go test'"}, false, "nested-command", "bash", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.interp+"/"+strings.Join(tc.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
			os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
			cfg := `{"commands": {"interpreter": "` + tc.interp + `", "allow": ["go", "git", "echo", "env"], "deny": ["rm"]}}`
			if err := os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			res := runAW(t, dir, nil, append([]string{"policy", "check-command"}, tc.args...)...)
			if res.Code != 0 || res.field(t, ".ok") != true {
				t.Fatalf("exit %d: %s", res.Code, res.Stdout)
			}
			if got := res.field(t, ".data.allowed"); got != tc.allowed {
				t.Fatalf("allowed %v: %s", got, res.Stdout)
			}
			str := func(path string) string {
				v, err := lookup(any(res.Env), path)
				if err != nil {
					return ""
				}
				s, _ := v.(string)
				return s
			}
			if str(".data.reason") != tc.reason || str(".data.executable") != tc.exe && tc.exe != "" || str(".data.path") != tc.path {
				t.Errorf("reason %q executable %q path %q, want %q %q %q", str(".data.reason"), str(".data.executable"), str(".data.path"), tc.reason, tc.exe, tc.path)
			}
			if !strings.Contains(str(".data.message"), tc.message) {
				t.Errorf("message %q lacks %q", str(".data.message"), tc.message)
			}
			if !tc.allowed && !strings.Contains(str(".summary"), tc.reason) {
				t.Errorf("summary %q does not name the reason", str(".summary"))
			}
			if _, ok := res.field(t, ".data.commands").([]any); !ok {
				t.Errorf("commands is not a list: %s", res.Stdout)
			}
			if _, ok := res.field(t, ".data.paths").([]any); !ok {
				t.Errorf("paths is not a list: %s", res.Stdout)
			}
		})
	}
}

func TestPolicyUsageAndDefaults(t *testing.T) {
	dir := t.TempDir()
	// Defaults: an empty allow list, so nothing may run, and the message
	// says how a human allows it.
	res := runAW(t, dir, nil, "policy", "check-command", "--", "go", "version")
	if res.Code != 0 || res.field(t, ".data.reason") != "not-allowed" ||
		!strings.Contains(res.field(t, ".data.message").(string), `aw config set commands.allow '["go"]'`) {
		t.Fatalf("default policy: exit %d %s", res.Code, res.Stdout)
	}
	for _, args := range [][]string{
		{"policy", "check-command"},
		{"policy", "check-command", "--line", "go test", "--", "go", "vet"},
		{"policy", "check-path"},
	} {
		res := runAW(t, dir, nil, args...)
		if res.Code != 2 || res.field(t, ".error.code") != "INVALID_INPUT" {
			t.Errorf("%v: exit %d %s", args, res.Code, res.Stdout)
		}
	}
	// The read tier may ask: nothing runs.
	res = runAW(t, dir, nil, "--tier", "read", "policy", "check-path", "x", "--write")
	if res.Code != 0 || res.field(t, ".data.allowed") != true {
		t.Errorf("check-path at the read tier: exit %d %s", res.Code, res.Stdout)
	}
}

// TestPolicyProcSelf: /proc/self is aw for aw and the shell for the shell,
// so a path through it is checked against aw's working directory while
// the command writes in its own. `cd sub && echo x > /proc/self/cwd/keep.txt`
// passed as ./keep.txt and wrote the protected sub/keep.txt.
func TestPolicyProcSelf(t *testing.T) {
	testenv.NeedProc(t)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(`{"permissionMode":2,"protectedPatterns":["sub/keep.txt"],"commands":{"allow":["echo","cat"],"interpreter":"sh"}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "sub", "keep.txt"), []byte("original\n"), 0o644)
	for _, args := range [][]string{
		{"--line", "cd sub && echo x > /proc/self/cwd/keep.txt"},
		{"--line", "cd sub; cd /proc/self/cwd; echo x > keep.txt"},
		{"--line", "echo x > /proc/thread-self/cwd/sub/keep.txt"},
		{"--line", "cat < /proc/self/cwd/x"},
	} {
		r := runAW(t, dir, nil, append([]string{"policy", "check-command"}, args...)...)
		if r.field(t, ".data.allowed") != false || r.field(t, ".data.reason") != "path-escape" {
			t.Errorf("%v: %s", args, r.Stdout)
		}
	}
	r := runAW(t, dir, nil, "command", "run", "--cwd", "sub", "--line", "echo pwned > /proc/self/cwd/keep.txt")
	if got, _ := os.ReadFile(filepath.Join(dir, "sub", "keep.txt")); string(got) != "original\n" {
		t.Errorf("sub/keep.txt is %q: %s", got, r.Stdout)
	}
}
