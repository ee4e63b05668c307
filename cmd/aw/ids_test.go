package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestIDPrefixes: an id may be given by a unique prefix, on the command
// line and in a JSON call alike; an ambiguous one is refused naming the
// candidates; shell completion offers the ids that exist.
func TestIDPrefixes(t *testing.T) {
	dir := t.TempDir()
	runAW(t, dir, nil, "init")
	var ids []string
	for _, name := range []string{"a.txt", "b.txt"} {
		r := runAW(t, dir, nil, "edit", "preview", "--op", `{"type":"create","path":"`+name+`","content":"x\n"}`)
		ids = append(ids, r.field(t, ".data.transactionId").(string))
	}
	// The shortest prefix of ids[1] that ids[0] does not share.
	n := 0
	for n < len(ids[1]) && strings.HasPrefix(ids[0], ids[1][:n+1]) {
		n++
	}
	unique := ids[1][:n+1]
	if r := runAW(t, dir, nil, "edit", "show", unique); r.Code != 0 || r.field(t, ".data.transactionId") != ids[1] {
		t.Fatalf("edit show %s: exit %d %s", unique, r.Code, r.Stdout)
	}
	if r := runAW(t, dir, nil, "call", "workspace_edit", `{"action":"show","transaction_id":"`+unique+`"}`); r.Code != 0 || r.field(t, ".data.transactionId") != ids[1] {
		t.Fatalf("call with a prefix: exit %d %s", r.Code, r.Stdout)
	}
	amb := runAW(t, dir, nil, "edit", "show", "tx_")
	if amb.Code != 2 || amb.field(t, ".error.code") != "INVALID_INPUT" || !strings.Contains(amb.field(t, ".error.message").(string), ids[0]) {
		t.Fatalf("ambiguous prefix: exit %d %s", amb.Code, amb.Stdout)
	}
	if r := runAW(t, dir, nil, "edit", "show", "tx_zzzz"); r.field(t, ".error.code") != "NOT_FOUND" {
		t.Fatalf("no match: %s", r.Stdout)
	}
	out := runRaw(t, dir, "__complete", "edit", "commit", "tx_")
	for _, id := range ids {
		if !strings.Contains(out, id+"\n") {
			t.Errorf("completion lacks %s:\n%s", id, out)
		}
	}
	if out := runRaw(t, dir, "__complete", "--tier", ""); !strings.Contains(out, "read\nwrite\nexec\n") {
		t.Errorf("--tier completion:\n%s", out)
	}
}

// runRaw runs the binary in dir and returns its stdout, for calls that
// print no envelope (shell completion).
func runRaw(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(awBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, ".userconfig-none"), "AW_ROOT=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("aw %v: %v", args, err)
	}
	return string(out)
}
