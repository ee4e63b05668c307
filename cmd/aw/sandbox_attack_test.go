//go:build linux

package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/agentic-workspace/aw/engine/sandbox"
	"github.com/agentic-workspace/aw/internal/testenv"
)

// The attacks below run tools by absolute path: the Landlock world's PATH
// holds only a few, and an attempt that fails as "not found" tests nothing.

// TestSandboxLinkAndRename: hard links, renames and symlinks do not turn a
// read-only or hidden path into a writable or readable one.
func TestSandboxLinkAndRename(t *testing.T) {
	for _, m := range mechanisms {
		t.Run(m, func(t *testing.T) {
			e := newSB(t, m, "")
			attempts := []string{
				// a hard link of a read-only file into the writable workspace
				`/bin/ln .agentic/config.json sub/hl && echo pwned >> sub/hl`,
				`/bin/ln deploy.key sub/hl2 && echo pwned >> sub/hl2`,
				`/bin/ln .git/config gitcfg && echo pwned >> gitcfg`,
				// renames of the carve-outs and of what holds them
				`/bin/mv .agentic agentic-moved`,
				`/bin/mv .git git-moved`,
				`/bin/mv .agentic/config.json .agentic/c2`,
				`/bin/mv deploy.key sub/deploy.moved && echo pwned > deploy.key`,
				`/bin/mv sub sub-moved && cat sub-moved/.env.local`,
				`/bin/mv sub/.env.local sub/plain.txt && cat sub/plain.txt`,
				// a symlink in the workspace onto a protected file
				`/bin/ln -s .agentic/config.json cfglink && echo pwned > cfglink`,
				`/bin/ln -s ../deploy.key sub/dk && echo pwned > sub/dk`,
				`/bin/ln -s .env envlink && cat envlink`,
			}
			r := e.sh(t, strings.Join(attempts, "; ")+"; echo done")
			wantMechanism(t, r, m)
			out := str(t, r, ".data.stdoutTail")
			if !strings.Contains(out, "done") {
				t.Fatalf("the script did not run to its end: %s", r.Stdout)
			}
			if strings.Contains(out, "secret") {
				t.Errorf("a denied file was read through a rename or a link:\n%s", out)
			}
			cfg, _ := os.ReadFile(e.ws + "/.agentic/config.json")
			if !strings.Contains(string(cfg), `"protectedPatterns"`) || strings.Contains(string(cfg), "pwned") {
				t.Errorf(".agentic/config.json was changed: %s", cfg)
			}
			unchanged(t, e.ws+"/deploy.key", "protected\n")
			unchanged(t, e.ws+"/.git/config", "[core]\n")
			unchanged(t, e.ws+"/sub/.env.local", "TOKEN=nested-secret\n")
			for _, p := range []string{"agentic-moved", "git-moved", ".agentic/c2"} {
				if _, err := os.Lstat(filepath.Join(e.ws, p)); err == nil {
					t.Errorf("%s was renamed from inside the sandbox", p)
				}
			}
		})
	}
}

// TestSandboxProcesses: the sandboxed command cannot reach into aw or the
// host through /proc: not the host's root through /proc/1/root, not aw's
// environment (which holds the approver token here) or its open files.
func TestSandboxProcesses(t *testing.T) {
	for _, m := range mechanisms {
		t.Run(m, func(t *testing.T) {
			e := newSB(t, m, "")
			e.extraEnv = append(e.extraEnv, "AW_APPROVER_TOKEN=approver-secret")
			r := e.sh(t, strings.Join([]string{
				"cat /proc/1/root" + e.home + "/.ssh/id_ed25519",
				"cat /proc/1/root" + e.config + "/aw/approver.token",
				"cat /proc/1/environ",
				`for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do cat "$f"; echo; done`,
				`for f in /proc/[0-9]*/fd/[3-9]*; do case "$f" in /proc/$$/*) continue;; esac; [ -f "$f" ] && cat "$f"; done`,
				`for p in /proc/[0-9]*; do cat $p/root` + e.home + `/.gitconfig; done`,
				"cat /proc/self/mounts > /dev/null && echo mounts-read",
				"echo done",
			}, " 2>/dev/null; "))
			wantMechanism(t, r, m)
			out := str(t, r, ".data.stdoutTail")
			if !strings.Contains(out, "done") {
				t.Fatalf("the script did not run to its end: %s", r.Stdout)
			}
			for _, secret := range []string{"approver-secret", "home-secret"} {
				if strings.Contains(out, secret) {
					t.Errorf("the sandboxed command read %q through /proc:\n%s", secret, out)
				}
			}
		})
	}
}

// TestSandboxSockets: with commands.network false, a command reaches no
// unix socket of the host: not an abstract one (a network namespace of its
// own cuts those; Landlock scopes them from ABI 6) and, under bubblewrap,
// not a named one under /run (D-Bus, a container runtime's, a database's),
// which a read-only mount alone would leave reachable.
func TestSandboxSockets(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		testenv.Missing(t, "/usr/bin/python3", "apt-get install python3")
	}
	if fi, err := os.Stat("/run"); err != nil || !fi.IsDir() {
		testenv.Missing(t, "/run", "the test needs a /run directory, as every systemd or Debian system has")
	}
	runDir, err := os.MkdirTemp("/run", "aw-test-")
	if err != nil {
		testenv.Missing(t, "a writable /run ("+err.Error()+")", "run the tests as root, as .ci/run does")
	}
	t.Cleanup(func() { os.RemoveAll(runDir) })
	named := filepath.Join(runDir, "bus")
	abstract := fmt.Sprintf("@aw-test-%d", time.Now().UnixNano())
	var accepted atomic.Int32
	for _, addr := range []string{named, abstract} {
		l, err := net.Listen("unix", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				accepted.Add(1)
				c.Close()
			}
		}()
	}
	connect := func(addr string) string {
		py := strings.ReplaceAll(addr, "@", `\0`)
		return `/usr/bin/python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect('` + py + `'); print('connected ` + filepath.Base(addr) + `')"`
	}
	abi, _ := llsyscall.LandlockGetABIVersion()
	for _, m := range mechanisms {
		t.Run(m, func(t *testing.T) {
			e := newSB(t, m, "")
			accepted.Store(0)
			r := e.sh(t, connect(named)+" 2>/dev/null; "+connect(abstract)+" 2>/dev/null; ls /run/dbus 2>/dev/null; echo done")
			wantMechanism(t, r, m)
			out := str(t, r, ".data.stdoutTail")
			if !strings.Contains(out, "done") {
				t.Fatalf("the script did not run to its end: %s", r.Stdout)
			}
			wantNamed := m == sandbox.Bubblewrap
			wantAbstract := m == sandbox.Bubblewrap || abi >= 6
			if wantAbstract && strings.Contains(out, "connected "+filepath.Base(abstract)) {
				t.Errorf("a command without network reached the host's abstract unix socket:\n%s", out)
			}
			if wantNamed && (strings.Contains(out, "connected bus") || strings.Contains(out, "system_bus_socket")) {
				t.Errorf("a command reached a named socket under /run:\n%s", out)
			}
			if wantNamed && wantAbstract && accepted.Load() != 0 {
				t.Errorf("the host's listeners accepted %d connections from the sandbox", accepted.Load())
			}
		})
	}
}

// TestSandboxLateMatches: a file created under a denied or protected name
// after the command started is not carved out for that command (the
// carve-outs are found at spawn; written down as not defended), but the
// next command's sandbox finds it, and aw's own tools refuse it at once.
func TestSandboxLateMatches(t *testing.T) {
	for _, m := range mechanisms {
		t.Run(m, func(t *testing.T) {
			e := newSB(t, m, "")
			e.sh(t, "echo late-secret > src/.env.late; echo first > src/deploy.key; echo done")
			r := e.sh(t, "cat src/.env.late; echo pwned >> src/deploy.key; echo done")
			if out := str(t, r, ".data.stdoutTail"); strings.Contains(out, "late-secret") || !strings.Contains(out, "done") {
				t.Errorf("the next command read a denied file created earlier:\n%s", out)
			}
			unchanged(t, e.ws+"/src/deploy.key", "first\n")
			wantErr(t, e.run(t, "inspect", "read", "src/.env.late"), "PATH_ESCAPE", 1, "denyPaths")
			wantErr(t, e.run(t, "edit", "apply", "--op", `{"type":"create","path":"src/deploy.key","content":"x","overwrite":true}`), "PROTECTED_PATH", 1)
		})
	}
}
