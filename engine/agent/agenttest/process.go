package agenttest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Process is a scripted model running as a process of its own, so it
// outlives the aw that started a run (durability tests kill and resume
// the run's supervisor while it keeps its script position and the ids it
// issued). Protocol errors it finds are written to a file the test reads.
type Process struct {
	URL  string // the server's root; BaseURL adds /v1
	cmd  *exec.Cmd
	errs string
}

// ScriptEnv names the script file a test binary's TestMain serves when it
// is re-executed as a model (see ServeFromEnv).
const ScriptEnv = "AW_TEST_SCRIPTED_MODEL"

// StartProcess re-executes the test binary as a model serving script; the
// binary's TestMain must call ServeFromEnv first.
func StartProcess(t *testing.T, script ...Turn) *Process {
	t.Helper()
	dir := t.TempDir()
	raw, err := json.Marshal(script)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "script.json")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), ScriptEnv+"="+path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &Process{cmd: cmd, errs: path + ".errors"}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if raw, _ := os.ReadFile(p.errs); len(raw) > 0 {
			t.Errorf("the scripted model found:\n%s", raw)
		}
	})
	for i := 0; i < 500; i++ {
		if raw, err := os.ReadFile(path + ".url"); err == nil && strings.HasSuffix(string(raw), "\n") {
			p.URL = strings.TrimSpace(string(raw))
			return p
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the scripted model process never said where it listens")
	return nil
}

// BaseURL is what agents.baseUrl should be.
func (p *Process) BaseURL() string { return p.URL + "/v1" }

// Served asks the model process how many turns it answered.
func (p *Process) Served() int {
	raw, _ := os.ReadFile(strings.TrimSuffix(p.errs, ".errors") + ".served")
	var n int
	fmt.Sscan(string(raw), &n)
	return n
}

// Hung reports whether a Hang turn's request has arrived (the client is
// waiting on it).
func (p *Process) Hung() bool {
	_, err := os.Stat(strings.TrimSuffix(p.errs, ".errors") + ".hung")
	return err == nil
}

// ServeFromEnv serves the script ScriptEnv names and exits, when it is
// set; otherwise it returns at once. It exits by itself when the test
// process that started it is gone.
func ServeFromEnv() {
	path := os.Getenv(ScriptEnv)
	if path == "" {
		return
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		os.Exit(2)
	}
	var script []Turn
	if err := json.Unmarshal(raw, &script); err != nil {
		os.Exit(2)
	}
	errs, err := os.OpenFile(path+".errors", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		os.Exit(2)
	}
	tb := &fileTB{f: errs}
	m := New(tb, script...)
	// After runs with the model's lock held: it reads next directly.
	m.After = func() { os.WriteFile(path+".served", []byte(fmt.Sprint(m.next)), 0o644) }
	go func() {
		<-m.Waiting
		os.WriteFile(path+".hung", nil, 0o644)
	}()
	os.WriteFile(path+".url", []byte(m.URL+"\n"), 0o644)
	parent := os.Getppid()
	for os.Getppid() == parent {
		time.Sleep(200 * time.Millisecond)
	}
	os.Exit(0)
}

// fileTB is the testing.TB of a model process: errors go to a file.
type fileTB struct {
	testing.TB
	f *os.File
}

func (tb *fileTB) Errorf(format string, args ...any) { fmt.Fprintf(tb.f, format+"\n", args...) }
func (tb *fileTB) Helper()                           {}
func (tb *fileTB) Cleanup(func())                    {}
