package main

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Tests of `aw command output`, `wait` and `cancel --all`. The jobs here
// wait for files the test creates (go1, go2, ...) between bursts, so each
// read's content is known exactly and nothing depends on timing: a read
// with --wait-ms 30000 that got the new bytes returned early because they
// arrived (woke "output"); had it not, it would say woke "elapsed".

// touch creates an empty file in dir: the signal a job waits for.
func touch(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// until is the shell text that waits for the file name to exist.
func until(name string) string { return "until [ -e " + name + " ]; do sleep 0.02; done" }

// output runs `aw command output` and checks it answered.
func output(t *testing.T, dir, id string, args ...string) Result {
	t.Helper()
	r := runAW(t, dir, nil, append([]string{"command", "output", id}, args...)...)
	wantOK(t, r, 0)
	if r.field(t, ".operation") != "command.output" {
		t.Fatalf("operation: %s", r.Stdout)
	}
	return r
}

// wantRead checks one read's new bytes, cursor and why it woke.
func wantRead(t *testing.T, r Result, stdout, stderr, cursor, woke string) {
	t.Helper()
	got := fmt.Sprintf("stdout %q stderr %q cursor %v woke %v", r.field(t, ".data.stdout"), r.field(t, ".data.stderr"), r.field(t, ".data.cursor"), get(r.Env, ".data.woke"))
	want := fmt.Sprintf("stdout %q stderr %q cursor %v woke %v", stdout, stderr, cursor, woke)
	if woke == "" {
		want = fmt.Sprintf("stdout %q stderr %q cursor %v woke <nil>", stdout, stderr, cursor)
	}
	if got != want {
		t.Fatalf("read:\n got %s\nwant %s\n%s", got, want, r.Stdout)
	}
}

func logFile(t *testing.T, dir, rel string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestCommandOutputBursts: a job writes in bursts to stdout and stderr;
// each read from the last cursor returns exactly the new bytes of each
// stream, --wait-ms returns as soon as they arrive and when the job ends,
// and the reads put together are the whole logs.
func TestCommandOutputBursts(t *testing.T) {
	dir := cmdWorkspace(t, 2, "")
	script := strings.Join([]string{"printf one", until("go1"), "printf E1 >&2", until("go2"), "printf 'two\\n'", until("go3"), "printf E2 >&2; printf three"}, "; ")
	id := str(t, runAW(t, dir, nil, "command", "start", "--", "sh", "-c", script), ".data.jobId")

	var out, errs strings.Builder
	read := func(r Result) string {
		out.WriteString(r.field(t, ".data.stdout").(string))
		errs.WriteString(r.field(t, ".data.stderr").(string))
		return str(t, r, ".data.cursor")
	}
	r := output(t, dir, id, "--wait-ms", "30000")
	wantRead(t, r, "one", "", "o:3,e:0", "output")
	if r.field(t, ".data.status") != "running" || r.field(t, ".data.since") != "o:0,e:0" || r.field(t, ".data.droppedBytes") != 0.0 {
		t.Fatalf("first read: %s", r.Stdout)
	}
	if !strings.Contains(str(t, r, ".summary"), "--since o:3,e:0") {
		t.Fatalf("the summary names the next call: %s", r.Stdout)
	}
	c := read(r)
	// Nothing new: an immediate read returns nothing and the same cursor.
	wantRead(t, output(t, dir, id, "--since", c), "", "", c, "")
	touch(t, dir, "go1")
	r = output(t, dir, id, "--since", c, "--wait-ms", "30000")
	wantRead(t, r, "", "E1", "o:3,e:2", "output")
	c = read(r)
	touch(t, dir, "go2")
	r = output(t, dir, id, "--since", c, "--wait-ms", "30000")
	wantRead(t, r, "two\n", "", "o:7,e:2", "output")
	c = read(r)
	touch(t, dir, "go3")
	// The last burst and the end: read until the job is over.
	for r.field(t, ".data.status") == "running" {
		r = output(t, dir, id, "--since", c, "--wait-ms", "30000")
		if w := r.field(t, ".data.woke"); w == "elapsed" {
			t.Fatalf("a read waiting for the end timed out: %s", r.Stdout)
		}
		c = read(r)
	}
	if r.field(t, ".data.status") != "exited" || r.field(t, ".data.exitCode") != 0.0 || c != "o:12,e:4" {
		t.Fatalf("after the end: %s", r.Stdout)
	}
	// Once ended, a wait returns at once: woke "ended".
	wantRead(t, output(t, dir, id, "--since", c, "--wait-ms", "30000"), "", "", c, "ended")

	if out.String() != "onetwo\nthree" || errs.String() != "E1E2" {
		t.Fatalf("the reads put together: stdout %q stderr %q", out.String(), errs.String())
	}
	rec := jobRecord(t, dir, id)
	if got := logFile(t, dir, rec["stdout"].(map[string]any)["path"].(string)); got != out.String() {
		t.Fatalf("stdout.log %q, reads %q", got, out.String())
	}
	if got := logFile(t, dir, rec["stderr"].(map[string]any)["path"].(string)); got != errs.String() {
		t.Fatalf("stderr.log %q, reads %q", got, errs.String())
	}
	// Without --since: from the start.
	wantRead(t, output(t, dir, id), "onetwo\nthree", "E1E2", "o:12,e:4", "")
}

// TestCommandOutputWaitEnds: a wait with no output to come returns when
// the job ends, with its status and exit code.
func TestCommandOutputWaitEnds(t *testing.T) {
	dir := cmdWorkspace(t, 2, "")
	id := str(t, runAW(t, dir, nil, "command", "start", "--", "sh", "-c", "printf x; "+until("go")+"; exit 4"), ".data.jobId")
	wantRead(t, output(t, dir, id, "--wait-ms", "30000"), "x", "", "o:1,e:0", "output")
	// The job ends while the next read waits (it may also have ended
	// before the read began: either way the read answers "ended", never
	// "elapsed").
	touch(t, dir, "go")
	r := output(t, dir, id, "--since", "o:1,e:0", "--wait-ms", "30000")
	wantRead(t, r, "", "", "o:1,e:0", "ended")
	if r.field(t, ".data.status") != "failed" || r.field(t, ".data.exitCode") != 4.0 {
		t.Fatalf("ended read: %s", r.Stdout)
	}
	if strings.Contains(str(t, r, ".summary"), "--since") {
		t.Fatalf("a finished job's read does not suggest another: %s", r.Stdout)
	}
}

// TestCommandOutputRefusals: a cursor that does not parse or points past
// what the job wrote, and a wait beyond 30 s, are INVALID_INPUT naming
// the rule; an unknown job is NOT_FOUND.
func TestCommandOutputRefusals(t *testing.T) {
	dir := cmdWorkspace(t, 2, "")
	id := str(t, runAW(t, dir, nil, "command", "run", "--", "sh", "-c", "printf abc; printf e >&2"), ".data.jobId")
	for _, bad := range []string{"garbage", "o:1", "o:1,e:", "o:01,e:0", "o:-1,e:0", "e:0,o:0", "o:1,e:0 ", "o:99999999999999999999,e:0"} {
		wantErr(t, runAW(t, dir, nil, "command", "output", id, "--since", bad), "INVALID_INPUT", 2, "is not an output cursor", "omit since")
	}
	for _, past := range []string{"o:4,e:0", "o:0,e:2"} {
		wantErr(t, runAW(t, dir, nil, "command", "output", id, "--since", past, "--wait-ms", "30000"), "INVALID_INPUT", 2, "points past what job "+id+" has written", "stdout 3 bytes")
	}
	wantErr(t, runAW(t, dir, nil, "command", "output", id, "--wait-ms", "30001"), "INVALID_INPUT", 2, "0 to 30000")
	wantErr(t, runAW(t, dir, nil, "command", "output", id, "--wait-ms", "-1"), "INVALID_INPUT", 2, "0 to 30000")
	wantErr(t, runAW(t, dir, nil, "command", "output", "job_nope"), "NOT_FOUND", 1, "is not a job id")
	// The end of the logs is a good cursor.
	wantRead(t, output(t, dir, id, "--since", "o:3,e:1"), "", "", "o:3,e:1", "")
}

// TestCommandOutputBound: output larger than maxToolResultChars returns
// the newest part of each stream, the budget shared by the two, with
// droppedBytes and where the skipped bytes are; control characters count
// as the envelope encodes them.
func TestCommandOutputBound(t *testing.T) {
	dir := cmdWorkspace(t, 2, "")
	id := str(t, runAW(t, dir, nil, "command", "run", "--", "sh", "-c", "yes 0123456789 | head -c 60000; yes err | head -c 50000 >&2"), ".data.jobId")
	r := output(t, dir, id)
	checkBound(t, "output of 110,000 bytes", r)
	so, se := str(t, r, ".data.stdout"), str(t, r, ".data.stderr")
	full := logFile(t, dir, ".agentic/jobs/"+id+"/stdout.log")
	fullErr := logFile(t, dir, ".agentic/jobs/"+id+"/stderr.log")
	if !strings.HasSuffix(full, so) || !strings.HasSuffix(fullErr, se) || len(so) < 5000 || len(se) < 5000 {
		t.Fatalf("want the newest part of each stream, got %d and %d bytes", len(so), len(se))
	}
	// Newlines cost two characters in JSON: what is shown fits 20,000.
	if cost := len(so) + strings.Count(so, "\n") + len(se) + strings.Count(se, "\n"); cost > 20000 {
		t.Fatalf("%d JSON characters of output, over maxToolResultChars", cost)
	}
	dropped := int(r.field(t, ".data.droppedBytes").(float64))
	if dropped != 110000-len(so)-len(se) || r.field(t, ".data.stdoutDroppedBytes") != float64(60000-len(so)) || r.field(t, ".data.truncated") != true {
		t.Fatalf("droppedBytes %d for %d+%d bytes shown: %s", dropped, len(so), len(se), r.Stdout[:400])
	}
	if r.field(t, ".data.cursor") != "o:60000,e:50000" {
		t.Fatalf("the cursor moves to the end: %v", r.field(t, ".data.cursor"))
	}
	sum := str(t, r, ".summary")
	if !strings.Contains(sum, fmt.Sprintf("stdout bytes 0-%d are in .agentic/jobs/%s/stdout.log", 60000-len(so), id)) {
		t.Fatalf("the summary says where the skipped bytes are: %s", sum)
	}
	// A small stderr lends its share to stdout.
	id = str(t, runAW(t, dir, nil, "command", "run", "--", "sh", "-c", "yes 0123456789 | head -c 60000; printf e >&2"), ".data.jobId")
	r = output(t, dir, id)
	if so := str(t, r, ".data.stdout"); len(so) < 15000 || r.field(t, ".data.stderr") != "e" {
		t.Fatalf("stdout got %d bytes next to one byte of stderr", len(so))
	}
	// NUL bytes are valid UTF-8 but take six characters each as \u0000.
	id = str(t, runAW(t, dir, nil, "command", "run", "--", "sh", "-c", "head -c 30000 /dev/zero"), ".data.jobId")
	r = output(t, dir, id)
	checkBound(t, "output of 30,000 NUL bytes", r)
	if so := str(t, r, ".data.stdout"); len(so) > 20000/6 || len(so) < 1000 || so != strings.Repeat("\x00", len(so)) {
		t.Fatalf("%d NUL bytes shown", len(so))
	}
}

// TestCommandOutputEncoding: bytes that are not UTF-8 come back as base64
// of exactly those bytes; a character the job has written only in part is
// held back until the rest arrives.
func TestCommandOutputEncoding(t *testing.T) {
	dir := cmdWorkspace(t, 2, "")
	id := str(t, runAW(t, dir, nil, "command", "run", "--", "sh", "-c", `printf 'ok\377\376'`), ".data.jobId")
	r := output(t, dir, id)
	raw, err := base64.StdEncoding.DecodeString(str(t, r, ".data.stdout"))
	if r.field(t, ".data.stdoutEncoding") != "base64" || err != nil || string(raw) != "ok\xff\xfe" || r.field(t, ".data.stderrEncoding") != "utf-8" {
		t.Fatalf("invalid UTF-8: %s", r.Stdout)
	}
	if !strings.Contains(str(t, r, ".summary"), "not valid UTF-8") {
		t.Fatalf("the summary says so: %s", r.Stdout)
	}
	// é is C3 A9: the job writes C3, waits, then A9.
	id = str(t, runAW(t, dir, nil, "command", "start", "--", "sh", "-c", `printf 'a\303'; `+until("go")), ".data.jobId")
	waitSize(t, filepath.Join(dir, ".agentic", "jobs", id, "stdout.log"), 2)
	r = output(t, dir, id)
	wantRead(t, r, "a", "", "o:1,e:0", "")
	if r.field(t, ".data.stdoutEncoding") != "utf-8" {
		t.Fatalf("a held-back character leaves the text UTF-8: %s", r.Stdout)
	}
	runAW(t, dir, nil, "command", "cancel", id)
	// Once the job is over, the lone byte is what it wrote: base64.
	r = output(t, dir, id, "--since", "o:1,e:0")
	if r.field(t, ".data.stdoutEncoding") != "base64" || r.field(t, ".data.stdout") != base64.StdEncoding.EncodeToString([]byte{0xc3}) {
		t.Fatalf("the final partial character: %s", r.Stdout)
	}
	// A wait does not wake for a part of a character, and wakes for the rest.
	id = str(t, runAW(t, dir, nil, "command", "start", "--", "sh", "-c", `printf '\303'; `+until("go2")+`; printf '\251'; `+until("go3")), ".data.jobId")
	waitSize(t, filepath.Join(dir, ".agentic", "jobs", id, "stdout.log"), 1)
	wantRead(t, output(t, dir, id, "--wait-ms", "300"), "", "", "o:0,e:0", "elapsed")
	touch(t, dir, "go2")
	wantRead(t, output(t, dir, id, "--wait-ms", "30000"), "é", "", "o:2,e:0", "output")
	runAW(t, dir, nil, "command", "cancel", id)
}

// waitSize polls until the file has at least n bytes (the job wrote them).
func waitSize(t *testing.T, path string, n int64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for fi, err := os.Stat(path); err != nil || fi.Size() < n; fi, err = os.Stat(path) {
		if time.Now().After(deadline) {
			t.Fatalf("the job did not write %d bytes to %s", n, filepath.Base(path))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCommandWait: wait returns status's envelope once the job ends; a job
// still running when the timeout passes is TIMEOUT (exit 1) saying so.
func TestCommandWait(t *testing.T) {
	dir := cmdWorkspace(t, 2, "")
	id := str(t, runAW(t, dir, nil, "command", "start", "--", "sh", "-c", "echo done; "+until("go")+"; exit 3"), ".data.jobId")
	touch(t, dir, "go")
	r := runAW(t, dir, nil, "command", "wait", id, "--tail-chars", "100")
	wantOK(t, r, 0)
	if r.field(t, ".operation") != "command.wait" || r.field(t, ".data.status") != "failed" || r.field(t, ".data.exitCode") != 3.0 || r.field(t, ".data.stdoutTail") != "done\n" {
		t.Fatalf("wait: %s", r.Stdout)
	}
	// A finished job: at once, with status's summary as it is.
	again := runAW(t, dir, nil, "command", "wait", id, "--timeout", "1")
	wantOK(t, again, 0)
	if s := str(t, again, ".summary"); !strings.HasPrefix(s, "Job "+id+" failed with exit code 3") {
		t.Fatalf("wait on a finished job: %s", s)
	}

	long := str(t, runAW(t, dir, nil, "command", "start", "--", "sleep", "60"), ".data.jobId")
	r = runAW(t, dir, nil, "command", "wait", long, "--timeout", "1")
	wantErr(t, r, "TIMEOUT", 1, "still running", "aw command cancel "+long)
	if r.field(t, ".error.details.status") != "running" || r.field(t, ".error.details.jobId") != long {
		t.Fatalf("timeout details: %s", r.Stdout)
	}
	for _, bad := range []string{"0", "0.5", "3601"} {
		wantErr(t, runAW(t, dir, nil, "command", "wait", long, "--timeout", bad), "INVALID_INPUT", 2, "1 to 3600")
	}
	wantErr(t, runAW(t, dir, nil, "command", "wait", long, "--timeout", "NaN"), "INVALID_INPUT", 2, "not a finite number")
	wantErr(t, runAW(t, dir, nil, "command", "wait", long, "--tail-chars", "5"), "INVALID_INPUT", 2, "tail_chars")
	wantErr(t, runAW(t, dir, nil, "command", "wait", "job_nope"), "NOT_FOUND", 1)
	runAW(t, dir, nil, "command", "cancel", long)
}

// TestCommandCancelAll: cancel --all stops every running job, one of them
// a tree with a process that left the job's session (setsid), and says
// which; with nothing running it says nothing was stopped. Each sandbox
// mechanism is tried, since setsid escapes a process group.
func TestCommandCancelAll(t *testing.T) {
	for _, m := range mechanisms {
		t.Run(m, func(t *testing.T) {
			e := newSB(t, m, "")
			nap := uniqueSleep()
			a := str(t, e.run(t, "command", "start", "--", "sleep", nap), ".data.jobId")
			b := str(t, e.run(t, "command", "start", "--", "sh", "-c", "setsid sleep "+nap+" & sleep "+nap), ".data.jobId")
			done := str(t, e.run(t, "command", "run", "--", "true"), ".data.jobId")
			deadline := time.Now().Add(10 * time.Second)
			for len(procsWith(nap)) < 3 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if n := len(procsWith(nap)); n < 3 {
				t.Fatalf("the jobs should have three sleeps, have %d", n)
			}
			r := e.run(t, "command", "cancel", "--all")
			wantOK(t, r, 0)
			if r.field(t, ".data.count") != 2.0 {
				t.Fatalf("cancel --all: %s", r.Stdout)
			}
			got := map[string]any{}
			for _, j := range list(t, r, ".data.cancelled") {
				got[j.(map[string]any)["id"].(string)] = j.(map[string]any)["status"]
			}
			if got[a] != "cancelled" || got[b] != "cancelled" || got[done] != nil {
				t.Fatalf("cancelled %v, want %s and %s: %s", got, a, b, r.Stdout)
			}
			sum := str(t, r, ".summary")
			if !strings.Contains(sum, a) || !strings.Contains(sum, b) {
				t.Fatalf("the summary names the jobs: %s", sum)
			}
			waitGone(t, nap, "cancel --all")
			if l := e.run(t, "command", "list"); l.field(t, ".data.running") != 0.0 {
				t.Fatalf("jobs still running: %s", l.Stdout)
			}
			r = e.run(t, "command", "cancel", "--all")
			if r.Code != 0 || r.field(t, ".data.count") != 0.0 || str(t, r, ".summary") != "No job was running: nothing was stopped." {
				t.Fatalf("cancel --all with nothing running: %s", r.Stdout)
			}
			wantErr(t, e.run(t, "command", "cancel", "--all", a), "INVALID_INPUT", 2, "not both")
			wantErr(t, e.run(t, "command", "cancel"), "INVALID_INPUT", 2, "cancel needs a job id")
		})
	}
}

// TestCommandCancelAllGate: cancel --all is gated as cancel is: never
// staged, but it needs the exec tier.
func TestCommandCancelAllGate(t *testing.T) {
	dir := cmdWorkspace(t, 0, "")
	r := runAW(t, dir, nil, "command", "cancel", "--all")
	wantOK(t, r, 0)
	wantErr(t, runAW(t, dir, nil, "--tier", "write", "command", "cancel", "--all"), "TOOL_DISABLED", 1, "needs tier exec")
	// output and wait are reads.
	wantErr(t, runAW(t, dir, nil, "--tier", "read", "command", "output", "job_nope"), "NOT_FOUND", 1)
}

// TestMCPCommandOutputWaitCancelAll: the three actions as MCP tool calls.
func TestMCPCommandOutputWaitCancelAll(t *testing.T) {
	dir := mcpWorkspace(t, `{"permissionMode": 2, "commands": {"allow": ["sh", "sleep"]}}`)
	c := startMCP(t, dir, clientOpts{})
	start := c.call(t, "workspace_command", map[string]any{"action": "start", "executable": "sh", "args": []any{"-c", "printf hi; printf oops >&2; " + until("go")}})
	id, _ := get(start, ".data.jobId").(string)
	if id == "" {
		t.Fatalf("start: %v", start)
	}
	var out, errs string
	cur := "o:0,e:0"
	for out != "hi" || errs != "oops" {
		env := c.call(t, "workspace_command", map[string]any{"action": "output", "job_id": id, "since": cur, "wait_ms": 30000})
		if get(env, ".operation") != "command.output" || get(env, ".data.woke") != "output" {
			t.Fatalf("output: %v", env)
		}
		out += get(env, ".data.stdout").(string)
		errs += get(env, ".data.stderr").(string)
		cur = get(env, ".data.cursor").(string)
	}
	if cur != "o:2,e:4" {
		t.Fatalf("cursor %s", cur)
	}
	env := c.call(t, "workspace_command", map[string]any{"action": "wait", "job_id": id, "timeout_seconds": 1})
	if get(env, ".error.code") != "TIMEOUT" || get(env, ".error.details.status") != "running" {
		t.Fatalf("wait with a timeout: %v", env)
	}
	env = c.call(t, "workspace_command", map[string]any{"action": "output", "job_id": id, "since": "bogus"})
	if get(env, ".error.code") != "INVALID_INPUT" {
		t.Fatalf("bad cursor: %v", env)
	}
	env = c.call(t, "workspace_command", map[string]any{"action": "cancel", "all": true})
	if get(env, ".operation") != "command.cancel" || get(env, ".data.count") != 1.0 || get(env, ".data.cancelled.0.id") != id {
		t.Fatalf("cancel all: %v", env)
	}
	env = c.call(t, "workspace_command", map[string]any{"action": "wait", "job_id": id})
	if get(env, ".operation") != "command.wait" || get(env, ".data.status") != "cancelled" {
		t.Fatalf("wait on a cancelled job: %v", env)
	}
}
