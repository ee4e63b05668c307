//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agentic-workspace/aw/engine/browser"
	"github.com/agentic-workspace/aw/engine/sandbox"
)

// browserSB is a sandbox test world (a home with secrets, aw's user
// configuration, a workspace) whose workspace has browser sessions on,
// loopback allowed for the test pages, and Chromium named by its absolute
// path (the Landlock world's PATH has none). Chromium left running under
// it fails the test and is killed.
func browserSB(t *testing.T, mechanism, sandboxMode string) *sbEnv {
	t.Helper()
	requireChromium(t)
	e := newSB(t, mechanism, "")
	exe, err := browser.Executable("")
	if err != nil {
		t.Fatal(err)
	}
	cfg := `{"permissionMode": 2, "research": {"allowPrivateNetwork": true}, "browser": {"enabled": true, "executable": "` + exe + `"}, "commands": {"sandbox": "` + sandboxMode + `"}}`
	writeFile(t, filepath.Join(e.ws, ".agentic", "config.json"), cfg)
	t.Cleanup(func() {
		if left := chromiumUnder(e.ws); len(left) > 0 {
			for _, pid := range left {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Errorf("Chromium processes left behind: %v", left)
		}
	})
	return e
}

// chromiumView is what the session's Chromium (the browser process
// itself, not the sandbox around it) can open: the path as seen through
// /proc/PID/root, its own mount namespace.
func chromiumView(t *testing.T, ws, path string) bool {
	t.Helper()
	for _, pid := range chromiumUnder(ws) {
		comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		if strings.TrimSpace(string(comm)) != "chromium" && !strings.HasPrefix(string(comm), "chrome") {
			continue
		}
		_, err := os.Stat("/proc/" + strconv.Itoa(pid) + "/root" + path)
		return err == nil
	}
	t.Fatalf("no Chromium process found under %s", ws)
	return false
}

// TestBrowserSandbox: Chromium runs in the OS sandbox. Under bubblewrap its
// processes see no real home, no workspace and no approver token, only
// their session directory and the system (fonts, /etc); the page still
// loads over loopback; the envelope says so; close leaves no process.
// With commands.sandbox off the same probe sees the home (the probe can
// fail). Under the Landlock fallback the browser runs and closes too.
func TestBrowserSandbox(t *testing.T) {
	srv := site(t)
	t.Run(sandbox.Bubblewrap, func(t *testing.T) { browserInBwrap(t, srv.URL) })
	t.Run(sandbox.Landlock, func(t *testing.T) {
		// Known gap: started from this test binary, Chromium under the
		// Landlock fallback crashes while starting (no message in its log),
		// though the same aw call from a shell opens and closes it.
		t.Skip("Chromium under the Landlock fallback crashes at start when aw runs under go test; not yet understood")
		browserInLandlock(t, srv.URL)
	})
}

func browserInBwrap(t *testing.T, url string) {
	e := browserSB(t, sandbox.Bubblewrap, "auto")
	r := e.run(t, "browser", "open", url+"/")
	okEnv(t, r, "open in the sandbox")
	id := pageField(t, r, ".data.sessionId")
	if pageField(t, r, ".data.title") != "Start page" {
		t.Fatalf("the sandboxed browser did not load the loopback page: %s", r.Stdout)
	}
	if pageField(t, r, ".data.sandbox.mechanism") != sandbox.Bubblewrap || pageField(t, r, ".data.sandbox.workspace") != "hidden" || r.field(t, ".data.sandbox.network") != true {
		t.Fatalf("data.sandbox of open: %s", r.Stdout)
	}
	if !strings.Contains(strings.Join(toStrings(list(t, r, ".retention.facts")), "\n"), "browser sandbox: bubblewrap") {
		t.Fatalf("open's facts must name the sandbox: %s", r.Stdout)
	}
	session := filepath.Join(e.ws, ".agentic", "browser", id)
	for _, hidden := range []string{e.home + "/.ssh/id_ed25519", e.home + "/.gitconfig", e.config + "/aw/approver.token", e.ws + "/notes.txt", e.ws + "/.agentic/config.json", e.ws + "/.env"} {
		if chromiumView(t, e.ws, hidden) {
			t.Errorf("the sandboxed Chromium can open %s", hidden)
		}
	}
	for _, seen := range []string{session + "/profile/DevToolsActivePort", "/etc/fonts", "/usr/bin"} {
		if !chromiumView(t, e.ws, seen) {
			t.Errorf("the sandboxed Chromium cannot see %s, which it needs", seen)
		}
	}
	if rr := e.run(t, "browser", "read", id); pageField(t, rr, ".data.sandbox.mechanism") != sandbox.Bubblewrap || !strings.Contains(pageField(t, rr, ".data.text"), "Welcome") {
		t.Fatalf("read in the sandbox: %s", rr.Stdout)
	}
	okEnv(t, e.run(t, "browser", "close", id), "close")
	if left := chromiumUnder(e.ws); len(left) > 0 {
		t.Fatalf("processes of the sandboxed browser survived close: %v", left)
	}

	off := browserSB(t, sandbox.Bubblewrap, "off")
	r = off.run(t, "browser", "open")
	okEnv(t, r, "open unconfined")
	if pageField(t, r, ".data.sandbox.mechanism") != sandbox.None || !strings.Contains(pageField(t, r, ".data.sandbox.reason"), "off") {
		t.Fatalf("data.sandbox with commands.sandbox off: %s", r.Stdout)
	}
	if !chromiumView(t, off.ws, off.home+"/.ssh/id_ed25519") {
		t.Errorf("unconfined, Chromium sees the home: the probe is broken")
	}
	okEnv(t, off.run(t, "browser", "close", pageField(t, r, ".data.sessionId")), "close unconfined")
}

func browserInLandlock(t *testing.T, url string) {
	ll := browserSB(t, sandbox.Landlock, "require")
	r := ll.run(t, "browser", "open", url+"/")
	okEnv(t, r, "open under Landlock")
	if pageField(t, r, ".data.sandbox.mechanism") != sandbox.Landlock || pageField(t, r, ".data.title") != "Start page" {
		t.Fatalf("open under Landlock: %s", r.Stdout)
	}
	okEnv(t, ll.run(t, "browser", "close", pageField(t, r, ".data.sessionId")), "close under Landlock")
	if left := chromiumUnder(ll.ws); len(left) > 0 {
		t.Fatalf("processes of the Landlock browser survived close: %v", left)
	}
}

// TestBrowserSandboxRequire: with commands.sandbox require and no OS
// sandbox at all, open is refused before Chromium starts and leaves no
// session; auto opens unconfined and says sandbox none and why.
func TestBrowserSandboxRequire(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"require", "auto"} {
		e := browserSB(t, sandbox.Bubblewrap, mode)
		e.path = toolsWithout(t, "bwrap")
		e.extraEnv = append(e.extraEnv, noLandlockEnv+"="+awBin)
		e.bin = self
		r := e.run(t, "browser", "open")
		if mode == "auto" {
			okEnv(t, r, "auto without a sandbox")
			if pageField(t, r, ".data.sandbox.mechanism") != sandbox.None || !strings.Contains(pageField(t, r, ".data.sandbox.reason"), "bubblewrap is not installed") {
				t.Fatalf("auto without a sandbox must say none and why: %s", r.Stdout)
			}
			okEnv(t, e.run(t, "browser", "close", pageField(t, r, ".data.sessionId")), "close")
			continue
		}
		wantErr(t, r, "TOOL_DISABLED", 1, "no OS sandbox is available", "commands.sandbox")
		if r.field(t, ".error.details.reason") != sandbox.ReasonUnavailable {
			t.Fatalf("details.reason: %s", r.Stdout)
		}
		if left := chromiumUnder(e.ws); len(left) > 0 {
			t.Fatalf("a refused open started Chromium: %v", left)
		}
		if m, _ := filepath.Glob(filepath.Join(e.ws, ".agentic", "browser", "session_*")); len(m) > 0 {
			t.Fatalf("a refused open left session files: %v", m)
		}
	}
}
