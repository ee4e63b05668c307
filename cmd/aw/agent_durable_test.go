package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/agent"
	"github.com/agentic-workspace/aw/engine/agent/agenttest"
)

// The durability tests run the scripted model as a process of its own: it
// outlives the aw that started the run and the supervisor a test kills, so
// a resumed run talks to the same model, which checks every tool result
// answers an id it issued.

// startRun runs `aw agent start` and returns the run id.
func startRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	r := runAW(t, dir, nil, append([]string{"agent", "start"}, args...)...)
	if r.Code != 0 || r.field(t, ".data.status") != "running" {
		t.Fatalf("start: %d %s", r.Code, r.Stdout)
	}
	return r.field(t, ".data.runId").(string)
}

// runState reads a run's state.json as it is on disk.
func runState(t *testing.T, dir, id string) agent.State {
	t.Helper()
	var st agent.State
	raw, err := os.ReadFile(filepath.Join(dir, ".agentic", "agents", id, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatalf("state.json: %v", err)
	}
	return st
}

// eventually polls cond every 20 ms until it holds or d passed.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("after %s: %s", d, what)
}

func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	raw, err := os.ReadFile("/proc/" + itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// transcriptTypes lists a run's transcript events as type[:tool.action].
func transcriptTypes(t *testing.T, dir, id string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, ".agentic", "agents", id, "transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var ev struct {
			Type string
			Data struct{ Tool, Action string }
		}
		json.Unmarshal([]byte(line), &ev)
		if ev.Type == "tool_result" {
			ev.Type += ":" + strings.TrimPrefix(ev.Data.Tool, "workspace_") + "." + ev.Data.Action
		}
		out = append(out, ev.Type)
	}
	return out
}

// start returns at once; the supervisor runs the loop after the aw that
// started it exited, records the report, exits, and wait returns it.
func TestAgentStartRunsInTheBackground(t *testing.T) {
	model := agenttest.StartProcess(t,
		agenttest.Turn{Calls: []agenttest.Call{call("workspace_inspect", M{"action": "read", "path": "README.md"})}, DelayMs: 300},
		agenttest.Turn{Content: report, Expect: "line two"},
	)
	dir := agentWorkspace(t, model, 2, "")
	id := startRun(t, dir, "--objective", "Read README.md")
	st := runState(t, dir, id)
	if !st.Detached || !st.Claimed || st.PID == os.Getpid() {
		t.Errorf("state after start: %+v", st)
	}
	caps := runAW(t, dir, nil, "inspect", "capabilities")
	procs, _ := caps.field(t, ".data.processes").([]any)
	found := false
	for _, p := range procs {
		m := p.(map[string]any)
		found = found || (m["kind"] == "agent-supervisor" && m["id"] == id && m["pid"] == float64(st.PID))
	}
	if !found {
		t.Errorf("capabilities lists no supervisor of %s (pid %d): %v", id, st.PID, procs)
	}
	w := runAW(t, dir, nil, "agent", "wait", id, "--timeout", "30")
	if w.Code != 0 || w.field(t, ".data.status") != "completed" || w.field(t, ".data.summary") != "README line two now says 2" {
		t.Fatalf("wait: %s", w.Stdout)
	}
	eventually(t, 5*time.Second, "the supervisor exits once the run settled", func() bool { return !alive(st.PID) })
	ch := runAW(t, dir, nil, "inspect", "changes")
	if ch.field(t, ".data.runs.0.id") != id || ch.field(t, ".data.runs.0.status") != "completed" {
		t.Errorf("inspect changes: %s", ch.Stdout)
	}
	// A wait that runs out is a TIMEOUT error naming the run.
	model2 := agenttest.StartProcess(t, agenttest.Turn{Hang: true})
	writeSettings(t, dir, `{"permissionMode": 2, "agents": {"enabled": true, "baseUrl": "`+model2.BaseURL()+`", "model": "scripted"}}`)
	id2 := startRun(t, dir, "Wait forever")
	w = runAW(t, dir, nil, "agent", "wait", id2, "--timeout", "1")
	if w.Code == 0 || w.field(t, ".error.code") != "TIMEOUT" || w.field(t, ".error.details.runId") != id2 {
		t.Errorf("wait timeout: %s", w.Stdout)
	}
	c := runAW(t, dir, nil, "agent", "cancel", id2)
	if c.field(t, ".data.status") != "cancelled" {
		t.Errorf("cancel: %s", c.Stdout)
	}
}

// cancel from another process stops a run that waits on its model; the
// supervisor exits and the run is recorded cancelled, never failed.
// Cancelling it again says it was already cancelled.
func TestAgentCancelFromAnotherProcess(t *testing.T) {
	model := agenttest.StartProcess(t, agenttest.Turn{Hang: true})
	dir := agentWorkspace(t, model, 2, "")
	id := startRun(t, dir, "Wait forever")
	pid := runState(t, dir, id).PID
	eventually(t, 10*time.Second, "the run asks its model", func() bool {
		_, err := os.Stat(filepath.Join(dir, ".agentic", "agents", id, "transcript.jsonl"))
		return err == nil
	})
	began := time.Now()
	c := runAW(t, dir, nil, "agent", "cancel", id)
	if c.Code != 0 || c.field(t, ".data.status") != "cancelled" || !strings.Contains(c.Env["summary"].(string), "Cancelled") {
		t.Fatalf("cancel: %s", c.Stdout)
	}
	if took := time.Since(began); took > 3*time.Second {
		t.Errorf("cancel took %s", took)
	}
	eventually(t, 5*time.Second, "the supervisor exits after a cancel", func() bool { return !alive(pid) })
	again := runAW(t, dir, nil, "agent", "cancel", id)
	if again.Code != 0 || !strings.Contains(again.Env["summary"].(string), "already cancelled") {
		t.Errorf("second cancel: %s", again.Stdout)
	}
	types := transcriptTypes(t, dir, id)
	if types[len(types)-1] != "run_end" {
		t.Errorf("transcript: %v", types)
	}
}

// kill -9 of the supervisor while the model thinks: the run is
// interrupted (never running forever), and start --resume continues it
// inside the pass it was in, from its last finished tool call: the read
// is not repeated, and the model gets the pass's messages back with the
// ids it issued.
func TestAgentKilledSupervisorResumes(t *testing.T) {
	model := agenttest.StartProcess(t,
		agenttest.Turn{Calls: []agenttest.Call{call("workspace_inspect", M{"action": "read", "path": "README.md"})}},
		agenttest.Turn{Hang: true},
		agenttest.Turn{Content: report, Expect: "line two"},
	)
	dir := agentWorkspace(t, model, 2, "")
	id := startRun(t, dir, "Read README.md")
	pid := runState(t, dir, id).PID
	eventually(t, 10*time.Second, "the model is asked a second time", model.Hung)
	syscall.Kill(pid, syscall.SIGKILL)
	eventually(t, 5*time.Second, "the killed supervisor is gone", func() bool { return !alive(pid) })
	st := runAW(t, dir, nil, "agent", "status", id)
	if st.field(t, ".data.status") != "interrupted" || !strings.Contains(st.Env["summary"].(string), "--resume") {
		t.Fatalf("after kill -9: %s", st.Stdout)
	}
	ch := runAW(t, dir, nil, "inspect", "changes")
	if ch.field(t, ".data.runs.0.status") != "interrupted" {
		t.Errorf("inspect changes: %s", ch.Stdout)
	}
	r := runAW(t, dir, nil, "agent", "start", "--resume", id)
	if r.Code != 0 || !strings.Contains(r.Env["summary"].(string), "resumed") {
		t.Fatalf("resume: %s", r.Stdout)
	}
	w := runAW(t, dir, nil, "agent", "wait", id, "--timeout", "30")
	if w.field(t, ".data.status") != "completed" || w.field(t, ".data.toolCalls") != float64(1) || w.field(t, ".data.passes") != float64(1) {
		t.Fatalf("after resume: %s", w.Stdout)
	}
	got := strings.Join(transcriptTypes(t, dir, id), " ")
	if got != "run_started reply tool_result:inspect.read run_resumed reply run_end" {
		t.Errorf("transcript: %s", got)
	}
	// A settled run is not resumed.
	again := runAW(t, dir, nil, "agent", "start", "--resume", id)
	if again.field(t, ".error.code") != "TRANSACTION_STATE" {
		t.Errorf("resume of a completed run: %s", again.Stdout)
	}
}

// A call under way when the supervisor died runs again on resume only
// when its action is safe to repeat: the command is answered with an
// error saying it may have taken effect, the stat after it runs.
func TestAgentResumeRerunsOnlyRepeatableCalls(t *testing.T) {
	model := agenttest.StartProcess(t,
		agenttest.Turn{Calls: []agenttest.Call{
			call("workspace_command", M{"action": "run", "executable": "sleep", "args": []string{"30"}}),
			call("workspace_inspect", M{"action": "stat", "path": "README.md"}),
		}},
		agenttest.Turn{Content: report, Expect: `not safe to repeat`},
	)
	dir := agentWorkspace(t, model, 2, `"allowCommands": true}, "commands": {"allow": ["sleep"]`)
	id := startRun(t, dir, "Sleep, then stat README.md")
	pid := runState(t, dir, id).PID
	eventually(t, 10*time.Second, "the command runs", func() bool {
		ents, _ := os.ReadDir(filepath.Join(dir, ".agentic", "jobs"))
		if len(ents) == 0 {
			return false
		}
		raw, _ := os.ReadFile(filepath.Join(dir, ".agentic", "jobs", ents[0].Name(), "job.json"))
		return strings.Contains(string(raw), `"status": "running"`)
	})
	syscall.Kill(pid, syscall.SIGKILL)
	eventually(t, 5*time.Second, "the killed supervisor is gone", func() bool { return !alive(pid) })
	// Its command dies with it (the sandbox's process tree goes with its
	// parent), before any resume: no orphan outlives the supervisor.
	if sandboxed(t, dir) {
		var running struct{ Pid int }
		ents, _ := os.ReadDir(filepath.Join(dir, ".agentic", "jobs"))
		raw, _ := os.ReadFile(filepath.Join(dir, ".agentic", "jobs", ents[0].Name(), "job.json"))
		json.Unmarshal(raw, &running)
		eventually(t, 3*time.Second, "the dead supervisor's command is gone", func() bool { return !alive(running.Pid) })
	}
	if r := runAW(t, dir, nil, "agent", "start", "--resume", id); r.Code != 0 {
		t.Fatalf("resume: %s", r.Stdout)
	}
	w := runAW(t, dir, nil, "agent", "wait", id, "--timeout", "30")
	if w.field(t, ".data.status") != "completed" || w.field(t, ".data.toolCalls") != float64(2) {
		t.Fatalf("after resume: %s", w.Stdout)
	}
	got := strings.Join(transcriptTypes(t, dir, id), " ")
	if got != "run_started reply run_resumed tool_result:command.run tool_result:inspect.stat reply run_end" {
		t.Errorf("transcript: %s", got)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, ".agentic", "jobs"))
	if len(ents) != 1 {
		t.Fatalf("the command ran %d times, want once", len(ents))
	}
	// The dead supervisor's command does not run on beside the resumed
	// run (the sandbox ends it with its parent, or resume does), and its
	// record no longer says running.
	var job struct{ Pid int }
	raw, _ := os.ReadFile(filepath.Join(dir, ".agentic", "jobs", ents[0].Name(), "job.json"))
	json.Unmarshal(raw, &job)
	eventually(t, 3*time.Second, "the interrupted command is gone", func() bool { return !alive(job.Pid) })
	if s := runAW(t, dir, nil, "command", "status", ents[0].Name()).field(t, ".data.status"); s != "cancelled" && s != "orphaned" {
		t.Errorf("the interrupted command is %v", s)
	}
}

// send reaches a running run before its next model request, and a
// settled run runs on with it, its caps counted afresh.
func TestAgentSend(t *testing.T) {
	model := agenttest.StartProcess(t,
		agenttest.Turn{Calls: []agenttest.Call{call("workspace_inspect", M{"action": "stat", "path": "README.md"})}, DelayMs: 1500},
		agenttest.Turn{Content: report, Expect: "Also check line three"},
		agenttest.Turn{Content: `{"summary": "line three checked too", "confidence": "high"}`, Expect: "And now the title"},
	)
	dir := agentWorkspace(t, model, 2, "")
	id := startRun(t, dir, "--max-tool-calls", "1", "Check README.md")
	s := runAW(t, dir, nil, "agent", "send", id, "Also", "check", "line", "three")
	if s.Code != 0 || !strings.Contains(s.Env["summary"].(string), "reads the message before its next model request") {
		t.Fatalf("send to a running run: %s", s.Stdout)
	}
	w := runAW(t, dir, nil, "agent", "wait", id, "--timeout", "30")
	if w.field(t, ".data.status") != "completed" {
		t.Fatalf("wait: %s", w.Stdout)
	}
	s = runAW(t, dir, nil, "agent", "send", id, "--message", "And now the title")
	if s.Code != 0 || s.field(t, ".data.status") != "running" {
		t.Fatalf("send to a completed run: %s", s.Stdout)
	}
	w = runAW(t, dir, nil, "agent", "wait", id, "--timeout", "30")
	if w.field(t, ".data.status") != "completed" || w.field(t, ".data.summary") != "line three checked too" || w.field(t, ".data.passes") != float64(2) {
		t.Fatalf("second leg: %s", w.Stdout)
	}
	if st := runState(t, dir, id); len(st.Messages) != 2 || st.CapToolCalls != 2 {
		t.Errorf("messages %q, tool-call cap %d", st.Messages, st.CapToolCalls)
	}
}

// The supervisor ends itself when the workspace's .agentic/ is removed.
func TestAgentSupervisorEndsWhenWorkspaceGoes(t *testing.T) {
	model := agenttest.StartProcess(t, agenttest.Turn{Hang: true})
	dir := agentWorkspace(t, model, 2, "")
	id := startRun(t, dir, "Wait forever")
	pid := runState(t, dir, id).PID
	if err := os.RemoveAll(filepath.Join(dir, ".agentic")); err != nil {
		t.Fatal(err)
	}
	eventually(t, 3*agent.PollInterval+2*time.Second, "the supervisor exits once .agentic/ is gone", func() bool { return !alive(pid) })
	if _, err := os.Stat(filepath.Join(dir, ".agentic")); err == nil {
		t.Errorf("the supervisor re-created .agentic/")
	}
}

// Ctrl-C of a foreground run records it cancelled (not failed, not left
// running for the next reader to find dead).
func TestAgentCtrlCCancelsForegroundRun(t *testing.T) {
	model := agenttest.New(t, agenttest.Turn{Hang: true})
	dir := agentWorkspace(t, model, 2, "")
	cmd := exec.Command(awBin, "agent", "run", "Wait forever")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, ".userconfig-none"), "AW_ROOT=")
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-model.Waiting:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the run never asked the model")
	}
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	var env map[string]any
	if err := json.Unmarshal([]byte(out.String()), &env); err != nil {
		t.Fatalf("stdout after Ctrl-C: %q", out.String())
	}
	id := get(env, ".data.runId").(string)
	if get(env, ".data.status") != "cancelled" {
		t.Errorf("envelope after Ctrl-C: %s", out.String())
	}
	if st := runState(t, dir, id); st.Status != "cancelled" || st.EndedAt.IsZero() {
		t.Errorf("state after Ctrl-C: %+v", st)
	}
}

// tier picks the model the settings name for it.
func TestAgentTierPicksModel(t *testing.T) {
	var got []string
	check := func(t testing.TB, req *agent.ChatRequest, raw []byte) { got = append(got, req.Model) }
	model := agenttest.New(t, agenttest.Turn{Content: report, Check: check}, agenttest.Turn{Content: report, Check: check}, agenttest.Turn{Content: report, Check: check})
	dir := agentWorkspace(t, model, 2, `"models": {"fast": "small-model", "good": "big-model"}`)
	for _, tier := range []string{"fast", "good"} {
		if r := runAW(t, dir, nil, "agent", "run", "--worker-tier", tier, "x"); r.field(t, ".data.model") == nil || r.Code != 0 {
			t.Fatalf("run --tier %s: %s", tier, r.Stdout)
		}
	}
	runAW(t, dir, nil, "agent", "run", "x")
	if strings.Join(got, " ") != "small-model big-model scripted" {
		t.Errorf("models asked: %v", got)
	}
}

// aw gc prunes settled runs past the retention age (the newest ten stay
// for the recovery listing) and kills a supervisor that ignored a cancel,
// recording its run cancelled.
func TestGCPrunesRunsAndEndsStaleSupervisors(t *testing.T) {
	var turns []agenttest.Turn
	for i := 0; i < 12; i++ {
		turns = append(turns, agenttest.Turn{Content: report})
	}
	model := agenttest.New(t, turns...)
	dir := agentWorkspace(t, model, 2, "")
	var ids []string
	for i := 0; i < 12; i++ {
		ids = append(ids, runAW(t, dir, nil, "agent", "run", "x").field(t, ".data.runId").(string))
	}
	old := time.Now().AddDate(0, 0, -30)
	for _, id := range ids {
		d := filepath.Join(dir, ".agentic", "agents", id)
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			os.Chtimes(filepath.Join(d, e.Name()), old, old)
		}
		os.Chtimes(d, old, old)
	}
	hung := agenttest.StartProcess(t, agenttest.Turn{Hang: true})
	writeSettings(t, dir, `{"permissionMode": 2, "agents": {"enabled": true, "baseUrl": "`+hung.BaseURL()+`", "model": "scripted"}}`)
	live := startRun(t, dir, "Wait forever")
	pid := runState(t, dir, live).PID
	// The supervisor is stopped, so it cannot obey a cancel asked for a
	// minute ago.
	syscall.Kill(pid, syscall.SIGSTOP)
	cancelFile := filepath.Join(dir, ".agentic", "agents", live, "cancel")
	os.WriteFile(cancelFile, []byte("x\n"), 0o644)
	os.Chtimes(cancelFile, time.Now().Add(-time.Minute), time.Now().Add(-time.Minute))
	r := runAWEnv(t, dir, nil, approver(t), "gc")
	if r.Code != 0 {
		t.Fatalf("gc: %s", r.Stdout)
	}
	ended, _ := r.field(t, ".data.ended").([]any)
	if len(ended) != 1 || get(ended[0].(map[string]any), ".kind") != "agent-supervisor" || get(ended[0].(map[string]any), ".id") != live {
		t.Errorf("ended: %v", ended)
	}
	eventually(t, 5*time.Second, "gc killed the stale supervisor", func() bool { return !alive(pid) })
	if st := runState(t, dir, live); st.Status != "cancelled" {
		t.Errorf("the stale supervisor's run is %s", st.Status)
	}
	for i, id := range ids {
		_, err := os.Stat(filepath.Join(dir, ".agentic", "agents", id))
		if gone := err != nil; gone != (i < 2) {
			t.Errorf("run %d (%s): pruned %v", i, id, gone)
		}
	}
	if l := runAW(t, dir, nil, "agent", "list"); l.field(t, ".data.total") != float64(11) {
		t.Errorf("list after gc: %s", l.Stdout)
	}
}

// Over MCP, start returns at once and wait returns the report; the
// supervisor aw mcp launched outlives nothing it should not: it exits
// when the run settles.
func TestMCPAgentStartAndWait(t *testing.T) {
	model := agenttest.New(t,
		agenttest.Turn{Calls: []agenttest.Call{call("workspace_inspect", M{"action": "stat", "path": "README.md"})}, DelayMs: 200},
		agenttest.Turn{Content: report},
	)
	dir := agentWorkspace(t, model, 2, "")
	c := startMCP(t, dir, clientOpts{})
	env := c.call(t, "workspace_agent", map[string]any{"action": "start", "objective": "Stat README.md"})
	if env["ok"] != true || get(env, ".data.status") != "running" {
		t.Fatalf("start over MCP: %v", env)
	}
	id := get(env, ".data.runId").(string)
	pid := runState(t, dir, id).PID
	env = c.call(t, "workspace_agent", map[string]any{"action": "wait", "run_id": id, "timeout_seconds": 30})
	if get(env, ".data.status") != "completed" || get(env, ".data.toolCalls") != float64(1) {
		t.Fatalf("wait over MCP: %v", env)
	}
	eventually(t, 5*time.Second, "the supervisor exits once its run settled", func() bool { return !alive(pid) })
}

// start follows run's gate: staged in Manual mode when the run could run
// commands (its resume call is start), started once approved, under the
// approval; refused in Plan mode without a plan. send to a run that may
// run commands is staged the same way.
func TestAgentStartAndSendAreGatedLikeRun(t *testing.T) {
	model := agenttest.New(t, agenttest.Turn{Content: report}, agenttest.Turn{Content: report, Expect: "Also lint"})
	dir, human := manualWorkspace(t, fmt.Sprintf(`, "agents": {"enabled": true, "allowCommands": true, "baseUrl": %q, "model": "scripted"}, "commands": {"allow": ["echo"]}`, model.BaseURL()))
	staged := runAW(t, dir, nil, "agent", "start", "Run the tests")
	if staged.Code != 3 || staged.field(t, ".data.approval.kind") != "agent" || staged.field(t, ".data.approval.resume.arguments.action") != "start" {
		t.Fatalf("Manual start: %s", staged.Stdout)
	}
	if a := runAWEnv(t, dir, nil, human, "approval", "accept", staged.field(t, ".data.approval.id").(string)); a.Code != 0 {
		t.Fatalf("accept: %s", a.Stdout)
	}
	id := startRun(t, dir, "Run the tests")
	if st := runState(t, dir, id); strings.Join(st.Grants, ",") != "command" || st.Spec.CommitEdits {
		t.Errorf("approved start: grants %v, commitEdits %v", st.Grants, st.Spec.CommitEdits)
	}
	if w := runAW(t, dir, nil, "agent", "wait", id, "--timeout", "30"); w.field(t, ".data.status") != "completed" {
		t.Fatalf("wait: %s", w.Stdout)
	}
	s := runAW(t, dir, nil, "agent", "send", id, "Also lint")
	if s.Code != 3 || s.field(t, ".data.approval.kind") != "agent" || model.Served() != 1 {
		t.Fatalf("Manual send: %s", s.Stdout)
	}
	runAWEnv(t, dir, nil, human, "approval", "accept", s.field(t, ".data.approval.id").(string))
	if s := runAW(t, dir, nil, "agent", "send", id, "Also lint"); s.Code != 0 {
		t.Fatalf("approved send: %s", s.Stdout)
	}
	if w := runAW(t, dir, nil, "agent", "wait", id, "--timeout", "30"); w.field(t, ".data.status") != "completed" || model.Served() != 2 {
		t.Fatalf("after send: %s", w.Stdout)
	}
	plan := agentWorkspace(t, model, 1, "")
	if r := runAW(t, plan, nil, "agent", "start", "Edit README"); r.field(t, ".error.code") != "APPROVAL_REQUIRED" {
		t.Errorf("Plan start: %s", r.Stdout)
	}
}

// sandboxed says the workspace's commands run in an OS sandbox here.
func sandboxed(t *testing.T, dir string) bool {
	t.Helper()
	r := runAW(t, dir, nil, "inspect", "capabilities")
	m, _ := r.field(t, ".data.sandbox.mechanism").(string)
	return m != "" && m != "none"
}

// A message sent while the model writes its final report is read: the run
// goes on with it instead of ending with it unread.
func TestAgentSendAsTheRunEnds(t *testing.T) {
	var dir string
	model := agenttest.New(t,
		agenttest.Turn{Content: report, Check: func(t testing.TB, req *agent.ChatRequest, raw []byte) {
			id := runAW(t, dir, nil, "agent", "list").field(t, ".data.runs.0.runId").(string)
			s := runAW(t, dir, nil, "agent", "send", id, "Also mention three")
			if sum, _ := s.Env["summary"].(string); s.Code != 0 || !strings.Contains(sum, "reads the message before its next model request") {
				t.Errorf("send while the run is going: %s", s.Stdout)
			}
		}},
		agenttest.Turn{Content: report, Expect: "Also mention three"},
	)
	dir = agentWorkspace(t, model, 2, "")
	r := runAW(t, dir, nil, "agent", "run", "Say two")
	if r.field(t, ".data.status") != "completed" || r.field(t, ".data.requests") != float64(2) {
		t.Fatalf("the run ended without reading the message: %s", r.Stdout)
	}
}
