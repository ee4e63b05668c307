package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/internal/testenv"
)

// TestHumanTerminal runs human verbs under a real pseudo-terminal (util-linux
// script): a terminal may mint the approver token and set config; the same
// verbs with stdin not a terminal are refused.
func TestHumanTerminal(t *testing.T) {
	testenv.Need(t, "script", "apt-get install bsdutils (script gives the test a pseudo-terminal)")
	ws := t.TempDir()
	home := t.TempDir()
	run := func(args string) map[string]any {
		t.Helper()
		cmd := exec.Command("script", "-qec", awBin+" "+args+" -o json", "/dev/null")
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+home, "AW_APPROVER_TOKEN=")
		out, _ := cmd.Output()
		var env map[string]any
		text := strings.TrimSpace(strings.ReplaceAll(string(out), "\r", ""))
		if err := json.Unmarshal([]byte(text), &env); err != nil {
			t.Fatalf("aw %s under a terminal: %v: %q", args, err, out)
		}
		return env
	}
	env := run("approval token")
	if env["ok"] != true {
		t.Fatalf("approval token on a terminal: %v", env)
	}
	token := env["data"].(map[string]any)["token"].(string)
	fi, err := os.Stat(filepath.Join(home, "aw", "approver.token"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", err, fi)
	}
	if env := run("config set permissionMode 2"); env["ok"] != true {
		t.Fatalf("config set on a terminal: %v", env)
	}
	// Without a terminal, the token decides.
	res := runAWEnv(t, ws, nil, []string{"XDG_CONFIG_HOME=" + home, "AW_APPROVER_TOKEN=" + token}, "config", "set", "permissionMode", "0")
	if res.Code != 0 {
		t.Fatalf("config set with the minted token: %s", res.Stdout)
	}
	res = runAWEnv(t, ws, nil, []string{"XDG_CONFIG_HOME=" + home, "AW_APPROVER_TOKEN=" + token}, "approval", "token")
	if res.field(t, ".error.code") != "HUMAN_REQUIRED" {
		t.Fatalf("a token holder must not mint a new token: %s", res.Stdout)
	}
}
