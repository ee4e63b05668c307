//go:build linux

package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/agentic-workspace/aw/engine/sandbox"
	"github.com/agentic-workspace/aw/internal/testenv"
)

// The OS sandbox, tried as a hostile command would: every test runs sh
// (allowed in commands.allow) and has it attempt what the sandbox must
// stop, then checks the host, not only what the command printed. Each
// runs under bubblewrap and, with bwrap off aw's PATH, under the Landlock
// fallback.

// noLandlockEnv makes this test binary a launcher that execs aw with the
// Landlock system calls failing ENOSYS (a seccomp filter, as a container
// runtime that blocks them would): with bwrap also off PATH, aw honestly
// has no sandbox.
const noLandlockEnv = "AW_TEST_EXEC_WITHOUT_LANDLOCK"

func init() {
	if os.Getenv(noLandlockEnv) == "" {
		return
	}
	runtime.LockOSThread() // the filter and the exec on one thread
	filter := []unix.SockFilter{
		{Code: 0x20, K: 0},                          // ld [0]: the system call number
		{Code: 0x15, Jt: 3, K: 444},                 // landlock_create_ruleset
		{Code: 0x15, Jt: 2, K: 445},                 // landlock_add_rule
		{Code: 0x15, Jt: 1, K: 446},                 // landlock_restrict_self
		{Code: 0x06, K: 0x7fff0000},                 // allow
		{Code: 0x06, K: 0x00050000 | 38 /*ENOSYS*/}, // errno
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, "no_new_privs:", err)
		os.Exit(125)
	}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, "seccomp:", err)
		os.Exit(125)
	}
	aw := os.Getenv(noLandlockEnv)
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, noLandlockEnv+"=") {
			env = append(env, kv)
		}
	}
	err := syscall.Exec(aw, append([]string{aw}, os.Args[1:]...), env)
	fmt.Fprintln(os.Stderr, "exec aw:", err)
	os.Exit(125)
}

// requireBwrap skips without bubblewrap, except under CI, where a missing
// bwrap is a failure naming what to install.
func requireBwrap(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("bubblewrap is not installed: the sandbox tests need it (scripts/test-deps installs it; apt-get install bubblewrap)")
		}
		t.Skip("bubblewrap is not installed (apt-get install bubblewrap, or scripts/test-deps)")
	}
}

// sbEnv is the world of one sandbox test: a workspace, a home with
// secrets, a user config directory outside both, a cache directory, and
// aw's PATH.
type sbEnv struct {
	ws, home, config, cache, outside string
	path                             string
	extraEnv                         []string
	bin                              string // what launches aw: the built aw, or this test binary
}

// mechanisms are the ways a test runs: bubblewrap, and the Landlock
// fallback (bwrap off aw's PATH).
var mechanisms = []string{sandbox.Bubblewrap, sandbox.Landlock}

func newSB(t *testing.T, mechanism, extra string) *sbEnv {
	t.Helper()
	requireBwrap(t)
	requireProc(t)
	base := realDir(t, t.TempDir())
	e := &sbEnv{ws: filepath.Join(base, "ws"), home: filepath.Join(base, "home"), config: filepath.Join(base, "config"),
		cache: filepath.Join(base, "cache"), outside: filepath.Join(base, "outside"), path: os.Getenv("PATH"), bin: awBin}
	for _, d := range []string{e.ws + "/.agentic", e.ws + "/.git", e.ws + "/sub", e.ws + "/src", e.home + "/.ssh", e.config + "/aw", e.cache, e.outside} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cfg := fmt.Sprintf(`{"permissionMode": 2, "protectedPatterns": ["deploy.key"], "commands": {"allow": ["sh","bash","cat","sleep","setsid","go","npm","node","true"], "env": {"npm_config_update_notifier": "false"}%s}}`, extra)
	files := map[string]string{
		e.ws + "/.agentic/config.json":  cfg,
		e.ws + "/.git/config":           "[core]\n",
		e.ws + "/deploy.key":            "protected\n",
		e.ws + "/.env":                  "TOKEN=workspace-secret\n",
		e.ws + "/sub/.env.local":        "TOKEN=nested-secret\n",
		e.ws + "/notes.txt":             "plain\n",
		e.home + "/.ssh/id_ed25519":     "home-secret\n",
		e.home + "/.gitconfig":          "[user]\nname = home-secret\n",
		e.config + "/aw/approver.token": "approver-secret\n",
		e.outside + "/target.txt":       "outside\n",
	}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if mechanism == sandbox.Landlock {
		// Landlock is the kernel's (5.13 and later), not a package: where
		// the kernel lacks it there is no fallback to test.
		if abi, _ := llsyscall.LandlockGetABIVersion(); abi < 1 {
			t.Skip("this kernel has no Landlock")
		}
		e.path = toolsWithout(t, "bwrap")
	}
	return e
}

// toolsWithout is a PATH directory with the tools these tests use, but
// not the one named: how a machine without bubblewrap looks to aw.
func toolsWithout(t *testing.T, missing string) string {
	t.Helper()
	dir := filepath.Join(realDir(t, t.TempDir()), "bin")
	os.MkdirAll(dir, 0o755)
	for _, tool := range []string{"sh", "bash", "cat", "sleep", "setsid", "true", "go", "npm", "node", "env"} {
		if tool == missing {
			continue
		}
		if p, err := exec.LookPath(tool); err == nil {
			os.Symlink(p, filepath.Join(dir, tool))
		}
	}
	return dir
}

func (e *sbEnv) env() []string {
	return append([]string{"HOME=" + e.home, "XDG_CONFIG_HOME=" + e.config, "XDG_CACHE_HOME=" + e.cache, "PATH=" + e.path}, e.extraEnv...)
}

func (e *sbEnv) run(t *testing.T, args ...string) Result {
	t.Helper()
	return runBinEnv(t, e.bin, e.ws, nil, e.env(), args...)
}

// sh runs a script in the sandbox and returns the envelope. The script is
// a file, which the command policy cannot read (it checks `sh -c` text
// itself): what it tries is stopped, or not, by the sandbox alone.
func (e *sbEnv) sh(t *testing.T, script string) Result {
	t.Helper()
	if err := os.WriteFile(filepath.Join(e.ws, "attack.sh"), []byte(script+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.run(t, "command", "run", "--timeout", "60", "--", "sh", "attack.sh")
	if r.Code != 0 {
		t.Fatalf("aw command run: exit %d: %s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	return r
}

func wantMechanism(t *testing.T, r Result, mechanism string) {
	t.Helper()
	if got := r.field(t, ".data.sandbox.mechanism"); got != mechanism {
		t.Fatalf("data.sandbox.mechanism is %v, want %s: %s", got, mechanism, r.Stdout)
	}
}

func unchanged(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Errorf("%s was changed from inside the sandbox: %q (%v)", path, got, err)
	}
}

// TestSandboxWrites: the command can write the workspace, and nothing
// else: not .agentic (its own settings), not .git, not a protectedPatterns
// file, not a path outside the workspace, not the home.
func TestSandboxWrites(t *testing.T) {
	for _, m := range mechanisms {
		t.Run(m, func(t *testing.T) {
			e := newSB(t, m, "")
			attempts := []string{
				`echo '{"permissionMode": 2, "commands": {"allow": ["*"]}}' > .agentic/config.json`,
				`echo pwned >> .agentic/config.json`,
				`mkdir .agentic/plans/evil`,
				`echo pwned > .agentic/MEMORY.md`,
				`rm -f .agentic/config.json`,
				`mv .agentic .agentic-moved`,
				`echo pwned > .git/config`,
				`echo '#!/bin/sh' > .git/hooks-pre-commit`,
				`echo pwned > deploy.key`,
				`rm -f deploy.key`,
				`echo pwned > ` + e.outside + `/target.txt`,
				`echo pwned > ` + e.outside + `/new.txt`,
				`echo pwned > ` + e.home + `/.gitconfig`,
				`echo pwned > ` + e.config + `/aw/approver.token`,
				`(cd sub && echo pwned > ../.agentic/config.json)`,
				`ln -s ` + e.outside + `/target.txt sub/link && echo pwned > sub/link`,
			}
			script := strings.Join(attempts, "; ") + "; echo ok > src/written.txt; echo more >> notes.txt; echo done"
			r := e.sh(t, script)
			wantMechanism(t, r, m)
			if !strings.Contains(str(t, r, ".data.stdoutTail"), "done") {
				t.Fatalf("the script did not run to its end: %s", r.Stdout)
			}
			cfg, _ := os.ReadFile(e.ws + "/.agentic/config.json")
			if !strings.Contains(string(cfg), `"protectedPatterns"`) || strings.Contains(string(cfg), "pwned") {
				t.Errorf(".agentic/config.json was changed: %s", cfg)
			}
			for _, p := range []string{e.ws + "/.agentic/plans/evil", e.ws + "/.agentic/MEMORY.md", e.ws + "/.agentic-moved", e.ws + "/.git/hooks-pre-commit", e.outside + "/new.txt"} {
				if _, err := os.Lstat(p); err == nil {
					t.Errorf("%s was created from inside the sandbox", p)
				}
			}
			unchanged(t, e.ws+"/.git/config", "[core]\n")
			unchanged(t, e.ws+"/deploy.key", "protected\n")
			unchanged(t, e.outside+"/target.txt", "outside\n")
			unchanged(t, e.home+"/.gitconfig", "[user]\nname = home-secret\n")
			unchanged(t, e.config+"/aw/approver.token", "approver-secret\n")
			// The workspace itself stays writable.
			unchanged(t, e.ws+"/src/written.txt", "ok\n")
			unchanged(t, e.ws+"/notes.txt", "plain\nmore\n")
		})
	}
}

// TestSandboxReads: the approver token, the home's files and denyPaths
// files are not readable; everything else in the workspace is.
func TestSandboxReads(t *testing.T) {
	for _, m := range mechanisms {
		t.Run(m, func(t *testing.T) {
			e := newSB(t, m, "")
			r := e.sh(t, strings.Join([]string{
				"cat " + e.config + "/aw/approver.token",
				"cat $XDG_CONFIG_HOME/aw/approver.token",
				"cat " + e.home + "/.ssh/id_ed25519",
				"cat " + e.home + "/.gitconfig",
				"cat ~/.gitconfig",
				"cat .env",
				"cat sub/.env.local",
				"cd sub && cat ../.env; cd ..",
				"cat notes.txt deploy.key",
			}, "; "))
			wantMechanism(t, r, m)
			out := str(t, r, ".data.stdoutTail")
			for _, secret := range []string{"approver-secret", "home-secret", "workspace-secret", "nested-secret"} {
				if strings.Contains(out, secret) {
					t.Errorf("the sandboxed command read %q:\n%s", secret, out)
				}
			}
			if !strings.Contains(out, "plain") || !strings.Contains(out, "protected") {
				t.Errorf("workspace files (protected ones too) must stay readable:\n%s\n%s", out, str(t, r, ".data.stderrTail"))
			}
		})
	}
}

// listen starts a TCP server on 127.0.0.1 counting its connections.
func listen(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var n atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).AddrPort().String(), &n
}

// TestSandboxNetwork: with commands.network false (the default) a command
// cannot connect to a server on 127.0.0.1, and the envelope says it ran
// without network; with it true, it can.
func TestSandboxNetwork(t *testing.T) {
	testenv.Need(t, "bash", "apt-get install bash (the test connects through /dev/tcp)")
	for _, m := range mechanisms {
		t.Run(m, func(t *testing.T) {
			if abi, _ := llsyscall.LandlockGetABIVersion(); m == sandbox.Landlock && abi < 4 {
				t.Skip("Landlock before ABI 4 (Linux 6.7) cannot restrict the network, and says so in data.sandbox.notEnforced")
			}
			addr, accepted := listen(t)
			host, port, _ := strings.Cut(addr, ":")
			connect := fmt.Sprintf(`bash -c 'echo hi > /dev/tcp/%s/%s' && echo connected || echo refused`, host, port)

			e := newSB(t, m, "")
			r := e.sh(t, connect)
			wantMechanism(t, r, m)
			if out := str(t, r, ".data.stdoutTail"); !strings.Contains(out, "refused") || accepted.Load() != 0 {
				t.Fatalf("connected without network (%d connections): %s", accepted.Load(), r.Stdout)
			}
			if r.field(t, ".data.sandbox.network") != false || !strings.Contains(strings.Join(toStrings(list(t, r, ".retention.facts")), "\n"), "without network") {
				t.Fatalf("the envelope must say the command ran without network: %s", r.Stdout)
			}

			on := newSB(t, m, `, "network": true`)
			r = on.sh(t, connect)
			if out := str(t, r, ".data.stdoutTail"); !strings.Contains(out, "connected") || accepted.Load() != 1 {
				t.Fatalf("commands.network true must connect (%d connections): %s", accepted.Load(), r.Stdout)
			}
			if r.field(t, ".data.sandbox.network") != true {
				t.Fatalf("data.sandbox.network: %s", r.Stdout)
			}
		})
	}
}

// TestSandboxSetsid: a process that leaves the job's session (setsid) or
// daemonizes is still killed on cancel and on timeout.
func TestSandboxSetsid(t *testing.T) {
	for _, m := range mechanisms {
		t.Run(m, func(t *testing.T) {
			e := newSB(t, m, "")
			nap := uniqueSleep()
			escape := "setsid sleep " + nap + " & setsid sh -c 'sleep " + nap + " &' & (sleep " + nap + " &) ; sleep " + nap
			r := e.run(t, "command", "start", "--", "sh", "-c", escape)
			id := str(t, r, ".data.jobId")
			deadline := time.Now().Add(10 * time.Second)
			for len(procsWith(nap)) < 4 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if n := len(procsWith(nap)); n < 4 {
				t.Fatalf("the job should have four sleeps, has %d: %v", n, procsWith(nap))
			}
			if c := e.run(t, "command", "cancel", id); c.field(t, ".data.status") != "cancelled" {
				t.Fatalf("cancel: %s", c.Stdout)
			}
			waitGone(t, nap, "cancel")

			nap = uniqueSleep()
			escape = "setsid sleep " + nap + " & setsid sh -c 'sleep " + nap + " &' & sleep " + nap
			r = e.run(t, "command", "run", "--timeout", "1", "--", "sh", "-c", escape)
			if r.field(t, ".data.status") != "timed_out" {
				t.Fatalf("timeout: %s", r.Stdout)
			}
			waitGone(t, nap, "timeout")
		})
	}
}

// waitGone fails when a process with arg in its command line is still
// alive shortly after the job ended (the kernel may need a moment to
// tear a PID namespace down).
func waitGone(t *testing.T, arg, after string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for len(procsWith(arg)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if left := procsWith(arg); len(left) > 0 {
		for _, p := range left {
			var pid int
			fmt.Sscanf(p, "%d", &pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Fatalf("processes survived the %s: %v", after, left)
	}
}

// TestSandboxDiesWithSupervisor: a background job's sandbox dies with the
// supervisor that waits for it, even when that is killed with SIGKILL.
func TestSandboxDiesWithSupervisor(t *testing.T) {
	e := newSB(t, sandbox.Bubblewrap, "")
	nap := uniqueSleep()
	r := e.run(t, "command", "start", "--", "sh", "-c", "setsid sleep "+nap+" & sleep "+nap)
	id := str(t, r, ".data.jobId")
	deadline := time.Now().Add(10 * time.Second)
	for len(procsWith(nap)) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	sup := int(jobRecord(t, e.ws, id)["supervisorPid"].(float64))
	if err := syscall.Kill(sup, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, nap, "supervisor's death")
}

// TestSandboxToolchains: go build, go test and npm test work inside the
// default sandbox, with the home replaced and no network.
func TestSandboxToolchains(t *testing.T) {
	e := newSB(t, sandbox.Bubblewrap, "")
	// The sandbox's Go build cache is shared by every workspace: keep it
	// in the user's cache directory across test runs, so only the first
	// run on a machine compiles the standard library.
	if c, err := os.UserCacheDir(); err == nil {
		e.cache = c
		t.Cleanup(func() { os.RemoveAll(sandbox.StateDir(c, e.ws)) })
	}
	files := map[string]string{
		"go.mod":        "module example.com/m\n\ngo 1.21\n",
		"m.go":          "package m\n\nfunc Add(a, b int) int { return a + b }\n",
		"m_test.go":     "package m\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n",
		"cmd/m/main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"built\") }\n",
		"package.json":  `{"name": "p", "version": "1.0.0", "scripts": {"test": "node t.js"}}`,
		"t.js":          "console.log('npm-test-ok')\n",
	}
	// A real repository: go build stamps the binary with git's status,
	// running git inside the sandbox on the read-only .git.
	if git, err := exec.LookPath("git"); err == nil {
		os.RemoveAll(filepath.Join(e.ws, ".git"))
		if out, err := exec.Command(git, "init", "-q", e.ws).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
	} else {
		os.RemoveAll(filepath.Join(e.ws, ".git")) // without a repository go build stamps nothing
	}
	for p, c := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(e.ws, p)), 0o755)
		if err := os.WriteFile(filepath.Join(e.ws, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"go", "build", "-o", "bin/m", "./cmd/m"}, ""},
		{[]string{"go", "test", "./..."}, "ok  \texample.com/m"},
		{[]string{"npm", "test"}, "npm-test-ok"},
	} {
		if _, err := exec.LookPath(tc.argv[0]); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed", tc.argv[0])
			}
			t.Logf("skipping %v: %s is not installed", tc.argv, tc.argv[0])
			continue
		}
		r := e.run(t, append([]string{"command", "run", "--timeout", "600", "--"}, tc.argv...)...)
		wantMechanism(t, r, sandbox.Bubblewrap)
		if r.field(t, ".data.exitCode") != 0.0 || !strings.Contains(str(t, r, ".data.stdoutTail"), tc.want) {
			t.Fatalf("%v in the sandbox: %s", tc.argv, r.Stdout)
		}
	}
	if out, err := exec.Command(filepath.Join(e.ws, "bin", "m")).Output(); err != nil || string(out) != "built\n" {
		t.Fatalf("the binary go build wrote: %q %v", out, err)
	}
}

// TestSandboxModes: commands.sandbox require refuses to run without a
// sandbox; auto runs and says sandbox none and why, in the envelope and
// in inspect capabilities; off is none by the human's choice; a bad value
// is refused when settings load.
func TestSandboxModes(t *testing.T) {
	// No sandbox at all: bwrap off PATH, Landlock refused by the kernel
	// (aw launched through this test binary, which installs the filter).
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	noSandbox := func(e *sbEnv) {
		e.path = toolsWithout(t, "bwrap")
		e.extraEnv = append(e.extraEnv, noLandlockEnv+"="+awBin)
		e.bin = self
	}
	run := func(e *sbEnv, args ...string) Result {
		t.Helper()
		return e.run(t, args...)
	}

	req := newSB(t, sandbox.Bubblewrap, `, "sandbox": "require"`)
	r := req.sh(t, "echo inside")
	wantMechanism(t, r, sandbox.Bubblewrap)

	noSandbox(req)
	r = run(req, "command", "run", "--", "sh", "-c", "echo should-not-run > ran.txt")
	wantErr(t, r, "COMMAND_DENIED", 1, "bubblewrap")
	if r.field(t, ".error.details.reason") != "sandbox-unavailable" || !strings.Contains(str(t, r, ".error.message"), "Landlock") {
		t.Fatalf("require without a sandbox: %s", r.Stdout)
	}
	if _, err := os.Stat(filepath.Join(req.ws, "ran.txt")); err == nil {
		t.Fatalf("the refused command ran")
	}
	r = run(req, "command", "start", "--", "true")
	wantErr(t, r, "COMMAND_DENIED", 1, "no OS sandbox is available")

	auto := newSB(t, sandbox.Bubblewrap, "")
	noSandbox(auto)
	r = run(auto, "command", "run", "--", "sh", "-c", "echo unconfined")
	if r.Code != 0 || r.field(t, ".data.stdoutTail") != "unconfined\n" {
		t.Fatalf("auto without a sandbox still runs: %s", r.Stdout)
	}
	wantMechanism(t, r, sandbox.None)
	why := str(t, r, ".data.sandbox.reason")
	if !strings.Contains(why, "bubblewrap is not installed") || !strings.Contains(why, "Landlock") {
		t.Fatalf("sandbox none must say why: %s", r.Stdout)
	}
	if !strings.Contains(strings.Join(toStrings(list(t, r, ".retention.facts")), "\n"), "sandbox: none (") {
		t.Fatalf("the facts must say sandbox: none: %s", r.Stdout)
	}
	c := run(auto, "inspect", "capabilities")
	if c.field(t, ".data.sandbox.mechanism") != sandbox.None || !strings.Contains(str(t, c, ".summary"), "sandbox: none (bubblewrap is not installed") {
		t.Fatalf("inspect capabilities without a sandbox: %s", c.Stdout)
	}
	landlockOnly := newSB(t, sandbox.Landlock, "")
	if c = landlockOnly.run(t, "inspect", "capabilities"); c.field(t, ".data.sandbox.mechanism") != sandbox.Landlock {
		t.Fatalf("inspect capabilities with only Landlock: %s", c.Stdout)
	}
	if c = newSB(t, sandbox.Bubblewrap, "").run(t, "inspect", "capabilities"); c.field(t, ".data.sandbox.mechanism") != sandbox.Bubblewrap || !strings.Contains(str(t, c, ".summary"), "sandbox: bubblewrap, no network") {
		t.Fatalf("inspect capabilities with bubblewrap: %s", c.Stdout)
	}

	off := newSB(t, sandbox.Bubblewrap, `, "sandbox": "off"`)
	r = off.sh(t, "cat .agentic/config.json > /dev/null && echo > .agentic/scratch && echo wrote")
	wantMechanism(t, r, sandbox.None)
	if !strings.Contains(str(t, r, ".data.sandbox.reason"), "off") || r.field(t, ".data.stdoutTail") != "wrote\n" {
		t.Fatalf("off runs unconfined and says so: %s", r.Stdout)
	}

	bad := newSB(t, sandbox.Bubblewrap, `, "sandbox": "maybe"`)
	wantErr(t, bad.run(t, "command", "run", "--", "true"), "INVALID_INPUT", 2, "commands.sandbox")
}

// TestSandboxHelperRefusesDirectCalls: the Landlock fallback's hidden
// helper runs only under aw's own supervisor; an agent calling it directly
// gets no way around the command policy.
func TestSandboxHelperRefusesDirectCalls(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	cmd := exec.Command(awBin, sandbox.HelperArg, `{"rules":[{"path":"/","kind":"rw"}],"network":true}`, "sh", "-c", "echo ran > "+marker)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 126 || !strings.Contains(string(out), "only under aw's command supervisor") {
		t.Fatalf("a direct call of the helper: %v %s", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the helper ran the command for a direct caller")
	}
}
