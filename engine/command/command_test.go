package command

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"

	"github.com/agentic-workspace/aw/internal/testenv"
)

func TestCommandTimeoutRules(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	cases := []struct {
		action  string
		given   *float64
		want    float64
		capped  bool
		invalid string
	}{
		{"run", nil, 600, false, ""},
		{"start", nil, 600, false, ""},
		{"run", f(30), 30, false, ""},
		{"run", f(1), 1, false, ""},
		{"run", f(1.5), 1.5, false, ""},
		{"run", f(601), 600, true, ""},
		{"start", f(1e9), 600, true, ""},
		{"start", f(0), 0, false, ""},
		{"run", f(0), 0, false, "use start"},
		{"run", f(0.999), 0, false, "below one second"},
		{"start", f(0.5), 0, false, "below one second"},
		{"start", f(-1), 0, false, "below one second"},
	}
	for _, c := range cases {
		got, capped, err := timeoutFor(c.action, c.given, 600)
		if c.invalid != "" {
			if envelope.CodeOf(err) != envelope.InvalidInput || !strings.Contains(err.Error(), c.invalid) {
				t.Errorf("%s %v: err %v, want INVALID_INPUT with %q", c.action, *c.given, err, c.invalid)
			}
			continue
		}
		if err != nil || got != c.want || capped != c.capped {
			t.Errorf("%s %v: %v %v %v, want %v %v", c.action, c.given, got, capped, err, c.want, c.capped)
		}
	}
}

func TestCommandTail(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		return p
	}
	cases := []struct {
		content  string
		chars    int
		maxBytes int64
		want     string
		cut      bool
	}{
		{"", 10, 0, "", false},
		{"hello\n", 100, 0, "hello\n", false},
		{"abcdef", 3, 0, "def", true},
		// Characters, not bytes: three 2-byte characters.
		{"xéàü", 3, 0, "éàü", true},
		{"éàü", 3, 0, "éàü", false},
		// A byte cap inside a character drops the partial one.
		{"aé€", 10, 4, "€", true},
		{"日本語テキスト", 2, 0, "スト", true},
	}
	for i, c := range cases {
		p := write("log", c.content)
		got, err := tailFile(p, c.chars, c.maxBytes)
		if err != nil || got.Text != c.want || got.Truncated != c.cut || got.Size != int64(len(c.content)) {
			t.Errorf("case %d: %+v %v, want %q cut=%v", i, got, err, c.want, c.cut)
		}
	}
	if got, err := tailFile(filepath.Join(dir, "missing"), 10, 0); err != nil || got.Text != "" {
		t.Errorf("missing log: %+v %v", got, err)
	}
}

// TestTailReadsOnlyTheEnd: a sparse 8 GiB log is tailed as fast as a
// small one, because only its last bytes are read.
func TestCommandTailReadsOnlyTheEnd(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.log")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(8 << 30); err != nil {
		testenv.Missing(t, fmt.Sprintf("sparse files (%v)", err), "run the tests on a file system with sparse files (TMPDIR on ext4, xfs, btrfs or tmpfs)")
	}
	f.WriteAt([]byte("\nthe end\n"), 8<<30)
	f.Close()
	start := time.Now()
	got, err := tailFile(p, 100, 0)
	if err != nil || !strings.HasSuffix(got.Text, "\nthe end\n") || !got.Truncated || got.Size != 8<<30+9 {
		t.Fatalf("%+v %v", got, err)
	}
	if took := time.Since(start); took > 100*time.Millisecond {
		t.Fatalf("tailing took %s: it must not read the whole file", took)
	}
}

func testWorkspace(t *testing.T, cfg string) *workspace.Workspace {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
	os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(cfg), 0o644)
	ws, err := workspace.Open(workspace.Options{Root: dir, Tier: workspace.TierExec})
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// TestRunRecordsTheEnd runs real processes through the engine: exit codes,
// signals, timeouts and the job record.
func TestCommandRunRecordsTheEnd(t *testing.T) {
	ws := testWorkspace(t, `{"permissionMode": 2, "commands": {"allow": ["sh"]}}`)
	cases := []struct {
		script string
		secs   float64
		status string
		code   int
		sig    string
	}{
		{"exit 0", 10, Exited, 0, ""},
		{"exit 5", 10, Failed, 5, ""},
		{"kill -KILL $$", 10, Killed, 137, "SIGKILL"},
		{"sleep 30", 1, TimedOut, 143, "SIGTERM"},
	}
	for _, c := range cases {
		secs := c.secs
		env, err := Run(context.Background(), ws, &Request{Executable: "sh", Args: []string{"-c", c.script}, TimeoutSeconds: &secs})
		if err != nil {
			t.Fatalf("%s: %v", c.script, err)
		}
		r := env.Data.(*Result)
		if r.Status != c.status || r.ExitCode == nil || *r.ExitCode != c.code || r.Signal != c.sig || r.EndedAt == nil {
			t.Errorf("%s: status %s exit %v signal %q", c.script, r.Status, r.ExitCode, r.Signal)
		}
		j, err := load(ws.Store, r.JobID)
		if err != nil || j.Status != c.status || j.Stdout.SHA256 == "" {
			t.Errorf("%s: record %+v %v", c.script, j, err)
		}
		if (c.status == TimedOut) != r.TimedOut || r.Cancelled {
			t.Errorf("%s: timedOut %v cancelled %v", c.script, r.TimedOut, r.Cancelled)
		}
	}
}
