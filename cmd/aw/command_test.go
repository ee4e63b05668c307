package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/proc"

	"github.com/agentic-workspace/aw/internal/testenv"
)

// cmdWorkspace is a workspace whose policy allows the tools these tests
// run. extra is spliced into the top-level config object.
func cmdWorkspace(t *testing.T, mode int, extra string) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
	cfg := fmt.Sprintf(`{"permissionMode": %d, "commands": {"allow": ["sh","sleep","echo","true","false","cat","yes","head","env","pwd","mytool","pathtool"]%s}}`, mode, extra)
	if err := os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// jobRecord reads .agentic/jobs/<id>/job.json as inspect changes and any
// script would.
func jobRecord(t *testing.T, dir, id string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, ".agentic", "jobs", id, "job.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// groupLeft lists the processes of group pgid that are still alive
// (zombies waiting for a reaper are dead: they run nothing).
func groupLeft(pgid int) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := proc.Read(pid); ok && st.Group == pgid && st.Living() {
			out = append(out, fmt.Sprintf("%d(%c)", pid, st.State))
		}
	}
	return out
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := proc.Read(child); ok && st.Parent == pid {
			out = append(out, child)
		}
	}
	return out
}

// waitFor polls the job's status until it leaves running.
func waitFor(t *testing.T, dir, id string, within time.Duration) Result {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		r := runAW(t, dir, nil, "command", "status", id)
		if r.field(t, ".data.status") != "running" || time.Now().After(deadline) {
			return r
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// uniqueSleep is a sleep duration no other process on the machine uses,
// so the test can find its sleeps by their command line.
func uniqueSleep() string {
	return fmt.Sprintf("%d.%d", 500+os.Getpid()%400, time.Now().UnixNano()%1000000)
}

// procsWith lists the living processes whose command line contains arg
// as one argument.
func procsWith(arg string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		for _, a := range strings.Split(string(raw), "\x00") {
			if a == arg {
				if st, ok := proc.Read(pid); ok && st.Living() {
					out = append(out, fmt.Sprintf("%d(%c %s)", pid, st.State, strings.ReplaceAll(string(raw), "\x00", " ")))
				}
				break
			}
		}
	}
	return out
}

func requireProc(t *testing.T) {
	t.Helper()
	testenv.NeedProc(t)
}

// TestCommandRun: a command that ran is ok whatever its exit code; the
// envelope carries the exit code, both tails, what ran, and logs that
// hold the whole output.
func TestCommandRun(t *testing.T) {
	dir := cmdWorkspace(t, 2, "")
	r := runAW(t, dir, nil, "command", "run", "--", "sh", "-c", "echo out; echo err >&2; exit 3")
	if r.Code != 0 || r.field(t, ".ok") != true {
		t.Fatalf("a failing command is data: exit %d %s", r.Code, r.Stdout)
	}
	id := str(t, r, ".data.jobId")
	for path, want := range map[string]any{
		".data.exitCode": 3.0, ".data.status": "failed", ".data.timedOut": false, ".data.cancelled": false,
		".data.stdoutTail": "out\n", ".data.stderrTail": "err\n", ".data.executable": "sh",
		".operation": "command.run",
	} {
		if got := r.field(t, path); got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	if exe := str(t, r, ".data.resolvedExecutable"); !filepath.IsAbs(exe) || filepath.Base(exe) != "sh" {
		t.Errorf("resolvedExecutable = %q, want the absolute path of sh", exe)
	}
	if _, ok := r.field(t, ".data.durationMs").(float64); !ok {
		t.Errorf("durationMs missing")
	}
	if !strings.Contains(str(t, r, ".summary"), id) {
		t.Errorf("the summary must name the job: %s", r.field(t, ".summary"))
	}
	omit := list(t, r, ".retention.omit_when_summarizing")
	if len(omit) != 2 || omit[0] != "data.stdoutTail" || omit[1] != "data.stderrTail" {
		t.Errorf("omit_when_summarizing = %v", omit)
	}
	out, _ := os.ReadFile(filepath.Join(dir, ".agentic", "jobs", id, "stdout.log"))
	errb, _ := os.ReadFile(filepath.Join(dir, ".agentic", "jobs", id, "stderr.log"))
	if string(out) != "out\n" || string(errb) != "err\n" {
		t.Errorf("logs: %q %q", out, errb)
	}
	arts := list(t, r, ".artifacts")
	if len(arts) != 2 || arts[0].(map[string]any)["path"] != ".agentic/jobs/"+id+"/stdout.log" || arts[0].(map[string]any)["sha256"] == "" {
		t.Errorf("artifacts: %v", arts)
	}
	// inspect changes reads job.json: id, status, executable, exitCode, startedAt.
	rec := jobRecord(t, dir, id)
	if rec["id"] != id || rec["status"] != "failed" || rec["executable"] != "sh" || rec["exitCode"] != 3.0 || rec["startedAt"] == "" {
		t.Errorf("job.json: %v", rec)
	}
	ch := runAW(t, dir, nil, "inspect", "changes")
	jobs := list(t, ch, ".data.jobs")
	if len(jobs) != 1 || jobs[0].(map[string]any)["id"] != id || jobs[0].(map[string]any)["exitCode"] != 3.0 {
		t.Errorf("inspect changes jobs: %v", jobs)
	}

	// Flags after the executable are its own.
	r = runAW(t, dir, nil, "command", "run", "echo", "-n", "x")
	if r.Code != 0 || r.field(t, ".data.stdoutTail") != "x" {
		t.Errorf("run echo -n x: %s", r.Stdout)
	}
	// The JSON form, as aw call and MCP send it.
	r = runAW(t, dir, nil, "call", "workspace_command", `{"action":"run","executable":"echo","args":["a b"]}`)
	if r.Code != 0 || r.field(t, ".data.stdoutTail") != "a b\n" {
		t.Errorf("aw call: %s", r.Stdout)
	}
}

// TestCommandInput: what run refuses before anything is spawned.
func TestCommandInput(t *testing.T) {
	dir := cmdWorkspace(t, 2, "")
	os.WriteFile(filepath.Join(dir, "file.txt"), []byte("x"), 0o644)
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	cases := []struct {
		name string
		args []string
		code string
		exit int
		msg  []string
	}{
		{"nothing", []string{"command", "run"}, "INVALID_INPUT", 2, []string{"nothing to run"}},
		{"both", []string{"command", "run", "--line", "echo a", "--", "echo"}, "INVALID_INPUT", 2, []string{"either a line or an executable"}},
		{"timeout 0 with run", []string{"command", "run", "--timeout", "0", "--", "true"}, "INVALID_INPUT", 2, []string{"Omit --timeout", "use start"}},
		{"timeout below a second", []string{"command", "run", "--timeout", "0.5", "--", "true"}, "INVALID_INPUT", 2, []string{"below one second"}},
		{"negative timeout on start", []string{"command", "start", "--timeout", "-1", "--", "true"}, "INVALID_INPUT", 2, []string{"below one second"}},
		{"cwd outside", []string{"command", "run", "--cwd", "..", "--", "true"}, "PATH_ESCAPE", 1, nil},
		{"cwd absolute outside", []string{"command", "run", "--cwd", "/tmp", "--", "true"}, "PATH_ESCAPE", 1, nil},
		{"cwd a file", []string{"command", "run", "--cwd", "file.txt", "--", "true"}, "INVALID_INPUT", 2, []string{"not an existing directory"}},
		{"cwd protected", []string{"command", "run", "--cwd", ".agentic", "--", "true"}, "PROTECTED_PATH", 1, nil},
		{"not allowed", []string{"command", "run", "--", "ls"}, "COMMAND_DENIED", 1, nil},
		{"missing executable", []string{"command", "run", "--", "mytool"}, "NOT_FOUND", 1, []string{"node_modules/.bin"}},
		{"status bad id", []string{"command", "status", "job_nope"}, "NOT_FOUND", 1, []string{"aw command list"}},
		{"status tail too small", []string{"command", "status", "job_0000000000000000000000a", "--tail-chars", "99"}, "INVALID_INPUT", 2, []string{"100 to 20000"}},
		{"status tail too large", []string{"command", "status", "job_0000000000000000000000a", "--tail-chars", "20001"}, "INVALID_INPUT", 2, nil},
		{"cancel unknown", []string{"command", "cancel", "job_0000000000000000000000a"}, "NOT_FOUND", 1, nil},
		{"list limit", []string{"command", "list", "--limit", "0"}, "", 0, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runAW(t, dir, nil, c.args...)
			if c.code == "" {
				wantOK(t, r, c.exit)
				return
			}
			wantErr(t, r, c.code, c.exit, c.msg...)
		})
	}
	// A refusal by the policy carries its reason.
	r := runAW(t, dir, nil, "command", "run", "--", "ls")
	if r.field(t, ".error.details.reason") != "not-allowed" {
		t.Errorf("COMMAND_DENIED reason: %s", r.Stdout)
	}
	// Nothing was recorded for refused calls.
	if entries, _ := os.ReadDir(filepath.Join(dir, ".agentic", "jobs")); len(entries) != 0 {
		t.Errorf("refused calls left %d jobs", len(entries))
	}
	// The cwd is where the command starts.
	r = runAW(t, dir, nil, "command", "run", "--cwd", "sub", "--", "pwd")
	if r.Code != 0 || strings.TrimSpace(str(t, r, ".data.stdoutTail")) != filepath.Join(realDir(t, dir), "sub") || r.field(t, ".data.cwd") != "sub" {
		t.Errorf("cwd sub: %s", r.Stdout)
	}
}

func realDir(t *testing.T, dir string) string {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// TestCommandEnvironment: the child sees the policy's environment only
// (inheritEnv picks plus env), never the approver token, and AW_JOB_ID.
func TestCommandEnvironment(t *testing.T) {
	dir := cmdWorkspace(t, 2, `, "env": {"FROM_SETTINGS": "yes"}`)
	r := runAWEnv(t, dir, nil, []string{"AW_APPROVER_TOKEN=secret-token", "LEAKY_VAR=leak"}, "command", "run", "--", "env")
	if r.Code != 0 {
		t.Fatalf("env: %s", r.Stdout)
	}
	out := str(t, r, ".data.stdoutTail")
	id := str(t, r, ".data.jobId")
	for _, want := range []string{"FROM_SETTINGS=yes", "AW_JOB_ID=" + id, "PATH="} {
		if !strings.Contains(out, want) {
			t.Errorf("the environment lacks %s:\n%s", want, out)
		}
	}
	for _, bad := range []string{"secret-token", "AW_APPROVER_TOKEN", "LEAKY_VAR"} {
		if strings.Contains(out, bad) {
			t.Errorf("the environment leaks %s:\n%s", bad, out)
		}
	}
	// A background job's supervisor hands on the same environment.
	s := runAWEnv(t, dir, nil, []string{"AW_APPROVER_TOKEN=secret-token", "LEAKY_VAR=leak"}, "command", "start", "--", "env")
	sid := str(t, s, ".data.jobId")
	waitFor(t, dir, sid, 10*time.Second)
	log, _ := os.ReadFile(filepath.Join(dir, ".agentic", "jobs", sid, "stdout.log"))
	if strings.Contains(string(log), "secret-token") || strings.Contains(string(log), "LEAKY_VAR") || !strings.Contains(string(log), "AW_JOB_ID="+sid) {
		t.Errorf("background environment:\n%s", log)
	}
}

// TestCommandResolution: PATH of the spawned environment first, then
// node_modules/.bin under the root (a workspace file: it runs only when
// commands.allow names its path); the envelope says what ran.
func TestCommandResolution(t *testing.T) {
	dir := cmdWorkspace(t, 2, "")
	bin := filepath.Join(dir, "node_modules", ".bin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "mytool"), []byte("#!/bin/sh\necho from-node-modules \"$@\"\n"), 0o755)
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	r := runAW(t, dir, nil, "command", "run", "--cwd", "sub", "--", "mytool", "x")
	if r.Code != 1 || r.field(t, ".error.details.reason") != "not-allowed" || r.field(t, ".error.details.path") != "node_modules/.bin/mytool" ||
		!strings.Contains(r.field(t, ".error.message").(string), "./node_modules/.bin/mytool") {
		t.Fatalf("a node_modules/.bin tool allowed by its bare name: %s", r.Stdout)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, ".agentic", "config.json"))
	os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(strings.Replace(string(raw), `"pathtool"]`, `"pathtool","./node_modules/.bin/mytool"]`, 1)), 0o644)
	r = runAW(t, dir, nil, "command", "run", "--cwd", "sub", "--", "mytool", "x")
	if r.Code != 0 || r.field(t, ".data.stdoutTail") != "from-node-modules x\n" ||
		r.field(t, ".data.resolvedExecutable") != filepath.Join(realDir(t, dir), "node_modules", ".bin", "mytool") {
		t.Fatalf("node_modules/.bin: %s", r.Stdout)
	}

	// PATH comes from the spawned environment (commands.env), not aw's.
	tools := t.TempDir()
	os.WriteFile(filepath.Join(tools, "pathtool"), []byte("#!/bin/sh\necho from-path\n"), 0o755)
	os.WriteFile(filepath.Join(tools, "mytool"), []byte("#!/bin/sh\necho path-wins\n"), 0o755)
	cfg := fmt.Sprintf(`, "inheritEnv": [], "env": {"PATH": %q}`, tools+":/usr/bin:/bin")
	dir2 := cmdWorkspace(t, 2, cfg)
	os.MkdirAll(filepath.Join(dir2, "node_modules", ".bin"), 0o755)
	os.WriteFile(filepath.Join(dir2, "node_modules", ".bin", "mytool"), []byte("#!/bin/sh\necho node\n"), 0o755)
	r = runAW(t, dir2, nil, "command", "run", "--", "pathtool")
	if r.Code != 0 || r.field(t, ".data.stdoutTail") != "from-path\n" || r.field(t, ".data.resolvedExecutable") != filepath.Join(tools, "pathtool") {
		t.Fatalf("PATH from commands.env: %s", r.Stdout)
	}
	r = runAW(t, dir2, nil, "command", "run", "--", "mytool")
	if r.field(t, ".data.stdoutTail") != "path-wins\n" {
		t.Fatalf("PATH comes before node_modules/.bin: %s", r.Stdout)
	}
	// aw's own PATH (which has pathtool) is not the command's.
	dir3 := cmdWorkspace(t, 2, `, "inheritEnv": []`)
	r = runAWEnv(t, dir3, nil, []string{"PATH=" + tools + ":" + os.Getenv("PATH")}, "command", "run", "--", "pathtool")
	wantErr(t, r, "NOT_FOUND", 1, "inheritEnv")
}

// TestCommandTimeoutKillsTree: a timeout kills the whole process group,
// grandchildren included.
func TestCommandTimeoutKillsTree(t *testing.T) {
	requireProc(t)
	dir := cmdWorkspace(t, 2, "")
	start := time.Now()
	nap := uniqueSleep()
	r := runAW(t, dir, nil, "command", "run", "--timeout", "1", "--", "sh", "-c", "sleep "+nap+" & sleep "+nap+" & echo started; wait")
	if took := time.Since(start); r.Code != 0 || took > 8*time.Second {
		t.Fatalf("run with a timeout: exit %d after %s: %s", r.Code, took, r.Stdout)
	}
	if r.field(t, ".data.status") != "timed_out" || r.field(t, ".data.timedOut") != true || r.field(t, ".data.cancelled") != false || r.field(t, ".data.stdoutTail") != "started\n" {
		t.Fatalf("timed out run: %s", r.Stdout)
	}
	pgid := int(r.field(t, ".data.pid").(float64))
	if left := append(groupLeft(pgid), procsWith(nap)...); len(left) > 0 {
		t.Fatalf("processes survived the timeout: %v", left)
	}
	// A timeout above commands.maxSeconds is capped, and says so.
	dir2 := cmdWorkspace(t, 2, `, "maxSeconds": 5`)
	r = runAW(t, dir2, nil, "command", "run", "--timeout", "99999", "--", "true")
	if r.field(t, ".data.timeoutSeconds") != 5.0 || !strings.Contains(strings.Join(toStrings(list(t, r, ".retention.facts")), "\n"), "capped") {
		t.Fatalf("cap: %s", r.Stdout)
	}
	// The default is commands.maxSeconds.
	if r = runAW(t, dir2, nil, "command", "run", "--", "true"); r.field(t, ".data.timeoutSeconds") != 5.0 {
		t.Fatalf("default timeout: %s", r.Stdout)
	}
}

// TestCommandBackground: start returns at once; the job outlives the aw
// that started it; its end is recorded by the supervisor; status tails a
// running job by default and a finished one only when asked.
func TestCommandBackground(t *testing.T) {
	dir := cmdWorkspace(t, 2, "")
	began := time.Now()
	r := runAW(t, dir, nil, "command", "start", "--", "sh", "-c", "echo begin; sleep 1; echo end; exit 7")
	if took := time.Since(began); r.Code != 0 || took > 900*time.Millisecond {
		t.Fatalf("start must return at once: exit %d after %s: %s", r.Code, took, r.Stdout)
	}
	id := str(t, r, ".data.jobId")
	if r.field(t, ".data.status") != "running" || r.field(t, ".data.pid").(float64) <= 0 || r.field(t, ".operation") != "command.start" {
		t.Fatalf("start: %s", r.Stdout)
	}
	s := runAW(t, dir, nil, "command", "status", id)
	if s.field(t, ".data.status") != "running" || s.field(t, ".data.endedAt") != nil {
		t.Fatalf("status while running: %s", s.Stdout)
	}
	if _, ok := s.Env["data"].(map[string]any)["stdoutTail"]; !ok {
		t.Fatalf("a running job is tailed by default: %s", s.Stdout)
	}
	s = waitFor(t, dir, id, 10*time.Second)
	if s.field(t, ".data.status") != "failed" || s.field(t, ".data.exitCode") != 7.0 || s.field(t, ".data.endedAt") == nil {
		t.Fatalf("status after the end: %s", s.Stdout)
	}
	if _, ok := s.Env["data"].(map[string]any)["stdoutTail"]; ok {
		t.Fatalf("a finished job is tailed only when asked: %s", s.Stdout)
	}
	s = runAW(t, dir, nil, "command", "status", id, "--tail-chars", "100")
	if s.field(t, ".data.stdoutTail") != "begin\nend\n" {
		t.Fatalf("--tail-chars on a finished job: %s", s.Stdout)
	}
	omit := list(t, s, ".retention.omit_when_summarizing")
	if len(omit) != 2 {
		t.Fatalf("tails must be omitted when summarizing: %v", omit)
	}
	rec := jobRecord(t, dir, id)
	if rec["status"] != "failed" || rec["exitCode"] != 7.0 || rec["endedAt"] == nil {
		t.Fatalf("job.json after the end: %v", rec)
	}
	l := runAW(t, dir, nil, "command", "list")
	if jobs := list(t, l, ".data.jobs"); len(jobs) != 1 || jobs[0].(map[string]any)["id"] != id || jobs[0].(map[string]any)["status"] != "failed" {
		t.Fatalf("list: %s", l.Stdout)
	}
	// --timeout 0 is start's unbounded job.
	u := runAW(t, dir, nil, "command", "start", "--timeout", "0", "--", "sleep", "30")
	if u.Code != 0 || u.field(t, ".data.timeoutSeconds") != 0.0 {
		t.Fatalf("start --timeout 0: %s", u.Stdout)
	}
	c := runAW(t, dir, nil, "command", "cancel", str(t, u, ".data.jobId"))
	if c.field(t, ".data.status") != "cancelled" || c.field(t, ".data.cancelled") != true {
		t.Fatalf("cancel: %s", c.Stdout)
	}
}

// TestCommandCancelKillsTree: cancel stops the whole group of a background
// job; a second cancel says nothing was stopped, in summary and facts.
func TestCommandCancelKillsTree(t *testing.T) {
	requireProc(t)
	dir := cmdWorkspace(t, 2, "")
	// The sleeps are found by their unique argument: inside the sandbox
	// they are in a session of their own, so not in the job's group.
	nap := uniqueSleep()
	r := runAW(t, dir, nil, "command", "start", "--", "sh", "-c", "sleep "+nap+" & sleep "+nap)
	id := str(t, r, ".data.jobId")
	pgid := int(r.field(t, ".data.pid").(float64))
	deadline := time.Now().Add(5 * time.Second)
	for len(procsWith(nap)) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(procsWith(nap)); n < 2 {
		t.Fatalf("the job should have two sleeps, has %d", n)
	}
	// Under bubblewrap the job's process has one child, the init of the
	// sandbox's PID namespace: it must be reaped by the time cancel
	// returns, not left running or a zombie.
	var inits []int
	if str(t, r, ".data.sandbox.mechanism") == "bubblewrap" {
		inits = childrenOf(pgid)
		if len(inits) != 1 {
			t.Fatalf("the sandbox should have one init under pid %d, has %v", pgid, inits)
		}
	}
	c := runAW(t, dir, nil, "command", "cancel", id)
	if c.Code != 0 || c.field(t, ".data.status") != "cancelled" || c.field(t, ".data.cancelled") != true || c.field(t, ".data.timedOut") != false {
		t.Fatalf("cancel: %s", c.Stdout)
	}
	if left := append(groupLeft(pgid), procsWith(nap)...); len(left) > 0 {
		t.Fatalf("processes survived the cancel: %v", left)
	}
	for _, pid := range inits {
		if st, ok := proc.Read(pid); ok {
			t.Fatalf("the sandbox's init %d is left behind in state %c", pid, st.State)
		}
	}
	again := runAW(t, dir, nil, "command", "cancel", id)
	want := id + " was already cancelled before cancel: no process was running, so nothing was stopped. Check the job id if you expected to stop a running job."
	if again.Code != 0 || again.field(t, ".summary") != want {
		t.Fatalf("cancel of a finished job:\n got %v\nwant %s", again.field(t, ".summary"), want)
	}
	facts := toStrings(list(t, again, ".retention.facts"))
	found := false
	for _, f := range facts {
		found = found || f == want
	}
	if !found {
		t.Fatalf("facts must carry the same: %v", facts)
	}
	// The same for a job that exited by itself.
	e := runAW(t, dir, nil, "command", "run", "--", "true")
	eid := str(t, e, ".data.jobId")
	if got := runAW(t, dir, nil, "command", "cancel", eid).field(t, ".summary"); got != eid+" was already exited before cancel: no process was running, so nothing was stopped. Check the job id if you expected to stop a running job." {
		t.Fatalf("cancel of an exited job: %v", got)
	}
}

// TestCommandOrphaned: a supervisor killed with SIGKILL leaves a job that
// status reports orphaned; cancel still stops its tree.
func TestCommandOrphaned(t *testing.T) {
	requireProc(t)
	// Unconfined (commands.sandbox off), the process outlives its
	// supervisor and cancel stops it; in the sandbox it dies with the
	// supervisor (TestSandboxDiesWithSupervisor).
	dir := cmdWorkspace(t, 2, `, "sandbox": "off"`)
	r := runAW(t, dir, nil, "command", "start", "--", "sleep", "60")
	id := str(t, r, ".data.jobId")
	pid := int(r.field(t, ".data.pid").(float64))
	sup := int(jobRecord(t, dir, id)["supervisorPid"].(float64))
	if sup <= 0 || sup == pid {
		t.Fatalf("supervisor pid %d (job pid %d)", sup, pid)
	}
	if err := syscall.Kill(sup, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var s Result
	deadline := time.Now().Add(5 * time.Second)
	for {
		s = runAW(t, dir, nil, "command", "status", id)
		if s.field(t, ".data.status") != "running" || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if s.field(t, ".data.status") != "orphaned" || !strings.Contains(str(t, s, ".summary"), "orphaned") {
		t.Fatalf("status after the supervisor was killed: %s", s.Stdout)
	}
	if jobRecord(t, dir, id)["status"] != "orphaned" {
		t.Fatalf("orphaned is recorded in job.json")
	}
	c := runAW(t, dir, nil, "command", "cancel", id)
	if c.field(t, ".data.status") != "cancelled" {
		t.Fatalf("cancel of an orphaned job with a living process: %s", c.Stdout)
	}
	if left := groupLeft(pid); len(left) > 0 {
		t.Fatalf("the orphan's process survived the cancel: %v", left)
	}
}

// TestCommandMaxJobs: commands.maxJobs bounds the background jobs running
// at once; a finished or cancelled one frees its slot.
func TestCommandMaxJobs(t *testing.T) {
	dir := cmdWorkspace(t, 2, `, "maxJobs": 1`)
	a := runAW(t, dir, nil, "command", "start", "--", "sleep", "60")
	id := str(t, a, ".data.jobId")
	b := runAW(t, dir, nil, "command", "start", "--", "sleep", "60")
	wantErr(t, b, "COMMAND_DENIED", 1, "commands.maxJobs", id)
	// A foreground run is not a background job.
	if r := runAW(t, dir, nil, "command", "run", "--", "true"); r.Code != 0 {
		t.Fatalf("run while maxJobs is reached: %s", r.Stdout)
	}
	runAW(t, dir, nil, "command", "cancel", id)
	c := runAW(t, dir, nil, "command", "start", "--", "sleep", "60")
	if c.Code != 0 {
		t.Fatalf("start after cancel: %s", c.Stdout)
	}
	runAW(t, dir, nil, "command", "cancel", str(t, c, ".data.jobId"))
}

// TestCommandGate: run and start go through the permission gate; status,
// cancel and list never do.
func TestCommandGate(t *testing.T) {
	// Plan mode without an approved plan.
	plan := cmdWorkspace(t, 1, "")
	wantErr(t, runAW(t, plan, nil, "command", "run", "--", "true"), "APPROVAL_REQUIRED", 1, "plan")
	wantErr(t, runAW(t, plan, nil, "command", "start", "--", "true"), "APPROVAL_REQUIRED", 1)
	wantOK(t, runAW(t, plan, nil, "command", "list"), 0)

	// Manual mode stages the exact call.
	dir, human := manualWorkspace(t, `, "commands": {"allow": ["echo","sleep"]}`)
	r := runAW(t, dir, nil, "command", "run", "--timeout", "30", "--", "echo", "hi")
	if r.Code != 3 || r.field(t, ".data.status") != "pending_approval" || r.field(t, ".data.approval.kind") != "command" {
		t.Fatalf("run in Manual mode: exit %d %s", r.Code, r.Stdout)
	}
	approval := str(t, r, ".data.approval.id")
	resume := r.field(t, ".data.approval.resume").(map[string]any)
	args := resume["arguments"].(map[string]any)
	if resume["tool"] != "workspace_command" || args["action"] != "run" || args["executable"] != "echo" || args["timeout_seconds"] != 30.0 ||
		len(args["args"].([]any)) != 1 || args["args"].([]any)[0] != "hi" {
		t.Fatalf("resume call: %v", resume)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, ".agentic", "jobs")); len(entries) != 0 {
		t.Fatalf("a staged call ran something")
	}
	// Re-issuing returns the same approval; another timeout is another call.
	if again := runAW(t, dir, nil, "command", "run", "--timeout", "30", "--", "echo", "hi"); again.field(t, ".data.approval.id") != approval {
		t.Fatalf("re-issued call: %s", again.Stdout)
	}
	if other := runAW(t, dir, nil, "command", "run", "--timeout", "31", "--", "echo", "hi"); other.field(t, ".data.approval.id") == approval {
		t.Fatalf("a different timeout must not match the approval")
	}
	show := runAW(t, dir, nil, "approval", "show", approval)
	if review := str(t, show, ".data.review"); !strings.Contains(review, "echo hi") {
		t.Fatalf("the human is shown the argv: %s", show.Stdout)
	}
	if a := runAWEnv(t, dir, nil, human, "approval", "accept", approval); a.Code != 0 {
		t.Fatalf("accept: %s", a.Stdout)
	}
	// The resume call runs once, then the approval is consumed.
	ran := runAW(t, dir, nil, "call", "workspace_command", `{"action":"run","executable":"echo","args":["hi"],"timeout_seconds":30}`)
	if ran.Code != 0 || ran.field(t, ".data.stdoutTail") != "hi\n" {
		t.Fatalf("resumed run: %s", ran.Stdout)
	}
	if s := runAW(t, dir, nil, "approval", "show", approval); s.field(t, ".data.approval.status") != "consumed" {
		t.Fatalf("approval after the run: %s", s.Stdout)
	}
	if again := runAW(t, dir, nil, "command", "run", "--timeout", "30", "--", "echo", "hi"); again.Code != 3 {
		t.Fatalf("a consumed approval runs nothing twice: %s", again.Stdout)
	}
	// start stages with action start.
	st := runAW(t, dir, nil, "command", "start", "--timeout", "0", "--", "sleep", "1")
	if st.Code != 3 || st.field(t, ".data.approval.resume.arguments.action") != "start" || st.field(t, ".data.approval.resume.arguments.timeout_seconds") != 0.0 {
		t.Fatalf("start in Manual mode: %s", st.Stdout)
	}

	// commands.enabled false: the tool is off.
	off := cmdWorkspace(t, 2, `, "enabled": false`)
	wantErr(t, runAW(t, off, nil, "command", "run", "--", "true"), "TOOL_DISABLED", 1, "commands.enabled")
	// --tier write cannot start processes.
	wantErr(t, runAW(t, cmdWorkspace(t, 2, ""), nil, "--tier", "write", "command", "run", "--", "true"), "TOOL_DISABLED", 1, "tier")
}

// TestCommandGigabyte: a job printing 1 GiB leaves aw's memory flat (the
// output goes straight to the log file) and the log complete; the tail
// comes from the end of the file. Flat is measured against a peer: the same
// run printing 1 KiB, on the same machine, in the same test (the resident
// size of a bare run depends on the machine: how much of the binary the
// kernel maps in, which sandbox runs the job).
func TestCommandGigabyte(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1 GiB")
	}
	const size = 1 << 30
	dir := cmdWorkspace(t, 2, "")
	run := func(n int) (Result, int64) {
		cmd := exec.Command(awBin, "command", "run", "--", "sh", "-c", fmt.Sprintf("yes 0123456789abcdef | head -c %d; echo; echo tail-marker", n))
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, ".userconfig-none"), "AW_ROOT=")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("aw: %v\n%s", err, out)
		}
		var env map[string]any
		if err := json.Unmarshal(out, &env); err != nil {
			t.Fatal(err)
		}
		return Result{Env: env, Stdout: out}, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024 // KiB on Linux
	}
	_, peer := run(1 << 10)
	r, rss := run(size)
	id := str(t, r, ".data.jobId")
	if r.field(t, ".data.exitCode") != 0.0 || !strings.HasSuffix(str(t, r, ".data.stdoutTail"), "\ntail-marker\n") || r.field(t, ".data.stdoutTruncated") != true {
		t.Fatalf("1 GiB run: %.600s", r.Stdout)
	}
	if n := len(str(t, r, ".data.stdoutTail")); n > 20000 {
		t.Fatalf("the inline tail is %d bytes, above maxToolResultChars", n)
	}
	fi, err := os.Stat(filepath.Join(dir, ".agentic", "jobs", id, "stdout.log"))
	if err != nil || fi.Size() != int64(size+len("\ntail-marker\n")) {
		t.Fatalf("the log is incomplete: %v %v", fi.Size(), err)
	}
	t.Logf("aw peak RSS while a job printed 1 GiB: %.1f MiB; printing 1 KiB: %.1f MiB", float64(rss)/(1<<20), float64(peer)/(1<<20))
	if rss > peer+32<<20 {
		t.Fatalf("aw's peak RSS was %d MiB for a 1 GiB job against %d MiB for 1 KiB: the output is being held in memory", rss>>20, peer>>20)
	}
}
