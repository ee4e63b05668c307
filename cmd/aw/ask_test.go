package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/agent/agenttest"
)

// startAW starts aw in the background; done returns its envelope once it
// exited.
func startAW(t *testing.T, dir string, env []string, args ...string) (done func() map[string]any) {
	t.Helper()
	raw := startAWRaw(t, dir, env, args...)
	return func() map[string]any {
		out := raw()
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("aw %v: %v: %s", args, err, out)
		}
		return m
	}
}

// startAWRaw is startAW returning the bytes aw printed.
func startAWRaw(t *testing.T, dir string, env []string, args ...string) (done func() []byte) {
	t.Helper()
	cmd := exec.Command(awBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, ".userconfig-none"), "AW_ROOT=", "AW_APPROVER_TOKEN=")
	cmd.Env = append(cmd.Env, env...)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return func() []byte {
		cmd.Wait()
		return out.Bytes()
	}
}

// askOperations: a question asked and answered, for the golden envelopes.
func askOperations(t testing.TB) map[string][]byte {
	tt := t.(*testing.T)
	dir := mcpWorkspace(tt, `{"permissionMode": 2}`)
	human := approver(tt)
	root, _ := filepath.EvalSymlinks(dir)
	done := startAWRaw(tt, dir, human[:1], "call", "ask", `{"action":"ask","question":"Keep the old API?","context":"v2 drops it","options":[{"label":"keep","description":"stay compatible"},{"label":"drop"}],"wait_seconds":30}`)
	id := pendingQuestion(tt, dir, human)
	ans := runAWEnv(tt, dir, nil, human, "call", "ask", fmt.Sprintf(`{"action":"answer","question_id":%q,"choices":["keep"]}`, id))
	return map[string][]byte{"ask.answer": normalize(ans.Stdout, root), "ask.ask": normalize(done(), root)}
}

// pendingQuestion waits for the one pending question and returns its id.
func pendingQuestion(t *testing.T, dir string, human []string) string {
	t.Helper()
	var id string
	eventually(t, 20*time.Second, "a question is pending", func() bool {
		r := runAWEnv(t, dir, nil, human, "answer")
		if qs, _ := r.field(t, ".data.questions").([]any); len(qs) == 1 {
			id = get(qs[0].(map[string]any), ".id").(string)
		}
		return id != ""
	})
	return id
}

func TestAskAndAnswer(t *testing.T) {
	dir := mcpWorkspace(t, `{"permissionMode": 1}`)
	// No terminal and no approver token: nobody could answer, so the
	// question is refused at once.
	began := time.Now()
	r := runAW(t, dir, nil, "ask", "Keep the old API?", "--option", "keep", "--option", "drop", "--wait", "30")
	if r.Code == 0 || r.field(t, ".error.code") != "HUMAN_REQUIRED" || r.field(t, ".error.details.reason") != "no-human-channel" || time.Since(began) > 5*time.Second {
		t.Fatalf("no human channel: %s", r.Stdout)
	}
	human := approver(t)
	asker := human[:1] // the token file exists; the asker does not hold the token

	done := startAW(t, dir, asker, "ask", "Keep the old API?", "--context", "v2 drops it", "--option", "keep:stay compatible", "--option", "drop", "--wait", "30")
	id := pendingQuestion(t, dir, human)
	for _, tc := range []struct {
		env  []string
		args []string
		code string
	}{
		{asker, []string{"answer", id, "keep"}, "HUMAN_REQUIRED"},
		{human, []string{"answer", id, "maybe"}, "INVALID_INPUT"},
		{human, []string{"answer", id, "keep", "drop"}, "INVALID_INPUT"},
		{human, []string{"answer", id, "keep", "--skip"}, "INVALID_INPUT"},
		{human, []string{"answer", "question_nope", "keep"}, "INVALID_INPUT"},
	} {
		if r := runAWEnv(t, dir, nil, tc.env, tc.args...); r.field(t, ".error.code") != tc.code {
			t.Errorf("%v: %s", tc.args, r.Stdout)
		}
	}
	if a := runAWEnv(t, dir, nil, human, "answer", id, "2"); a.Code != 0 || a.field(t, ".data.status") != "answered" {
		t.Fatalf("answer: %s", a.Stdout)
	}
	env := done()
	if env["ok"] != true || get(env, ".data.choices.0") != "drop" || !strings.Contains(env["summary"].(string), `chose "drop"`) {
		t.Errorf("asker after the answer: %v", env)
	}
	if r := runAWEnv(t, dir, nil, human, "answer", id, "keep"); r.field(t, ".error.code") != "TRANSACTION_STATE" {
		t.Errorf("second answer: %s", r.Stdout)
	}

	// A skip is success, with the instruction to go on.
	done = startAW(t, dir, asker, "ask", "Which port?", "--wait", "30")
	id = pendingQuestion(t, dir, human)
	if a := runAWEnv(t, dir, nil, human, "answer", id, "--skip"); a.Code != 0 {
		t.Fatalf("skip: %s", a.Stdout)
	}
	env = done()
	if env["ok"] != true || get(env, ".data.status") != "skipped" || !strings.Contains(env["summary"].(string), "stated assumption") {
		t.Errorf("asker after a skip: %v", env)
	}

	// A wait that runs out is an error with the same instruction, and the
	// question can no longer be answered.
	r = runAWEnv(t, dir, nil, asker, "ask", "Anyone there?", "--wait", "1")
	if r.Code == 0 || r.field(t, ".error.code") != "TIMEOUT" || !strings.Contains(r.field(t, ".error.message").(string), "stated assumption") {
		t.Fatalf("timeout: %s", r.Stdout)
	}
	late := r.field(t, ".error.details.questionId").(string)
	if a := runAWEnv(t, dir, nil, human, "answer", late, "yes"); a.field(t, ".error.code") != "TRANSACTION_STATE" {
		t.Errorf("answer after the timeout: %s", a.Stdout)
	}
	for _, args := range [][]string{{"ask"}, {"ask", "x", "--wait", "0"}, {"ask", "x", "--multi"}, {"ask", "x", "--option", "1"}} {
		if r := runAWEnv(t, dir, nil, asker, args...); r.field(t, ".error.code") != "INVALID_INPUT" {
			t.Errorf("%v: %s", args, r.Stdout)
		}
	}
}

// A run asks the human through its ask_user tool and goes on with the
// answer.
func TestAgentRunAsksTheHuman(t *testing.T) {
	model := agenttest.New(t,
		agenttest.Turn{Calls: []agenttest.Call{call("ask_user", M{"action": "ask", "question": "Which name?", "options": []any{M{"label": "alpha"}, M{"label": "beta"}}, "wait_seconds": 30})}},
		agenttest.Turn{Content: report, Expect: "The human chose"},
	)
	dir := agentWorkspace(t, model, 2, "")
	human := approver(t)
	done := startAW(t, dir, human[:1], "agent", "run", "Name the thing")
	id := pendingQuestion(t, dir, human)
	if a := runAWEnv(t, dir, nil, human, "answer", id, "beta"); a.Code != 0 {
		t.Fatalf("answer: %s", a.Stdout)
	}
	env := done()
	if get(env, ".data.status") != "completed" || get(env, ".data.toolCalls") != float64(1) {
		t.Errorf("run: %v", env)
	}
}
