//go:build unix

package browser

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentic-workspace/aw/engine/proc"
)

// detach makes Chromium the leader of a new session and process group: it
// outlives the aw call that started it, no signal aimed at the caller's
// terminal reaches it, and close can end its whole tree with one signal.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// alive reports whether pid is Chromium started at start (0 skips that
// check); pid 1 never is, whatever a damaged session file says.
func alive(pid int, start uint64) bool { return pid > 1 && proc.Alive(pid, start) }

// stop asks a process to end (a session's watchdog).
func stop(pid int) { syscall.Kill(pid, syscall.SIGTERM) }

// Leftovers lists the living processes of Chromium's group pgid and every
// living process whose command line names the profile directory (a helper
// that left the group still carries --user-data-dir).
func Leftovers(pgid int, profile string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		if pgid > 1 && syscall.Kill(-pgid, 0) == nil {
			return []int{pgid}
		}
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		st, ok := proc.Read(pid)
		if !ok || !st.Living() {
			continue
		}
		if pgid > 1 && st.Group == pgid {
			out = append(out, pid)
			continue
		}
		if profile != "" {
			if cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && mentions(string(cmd), profile) {
				out = append(out, pid)
			}
		}
	}
	return out
}

// strays lists, by session id, the living processes whose
// --user-data-dir is a session profile under dir (the workspace's browser
// directory).
func strays(dir string) map[string][]int {
	out := map[string][]int{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	prefix := filepath.Clean(dir) + string(os.PathSeparator)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := proc.Read(pid); !ok || !st.Living() {
			continue
		}
		cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		for _, arg := range strings.Split(string(cmd), "\x00") {
			v, ok := strings.CutPrefix(arg, "--user-data-dir=")
			if !ok {
				continue
			}
			if rest, ok := strings.CutPrefix(filepath.Clean(v), prefix); ok {
				if id, ok := strings.CutSuffix(rest, string(os.PathSeparator)+"profile"); ok && !strings.Contains(id, string(os.PathSeparator)) {
					out[id] = append(out[id], pid)
				}
			}
			break
		}
	}
	return out
}

// mentions reports whether a NUL-separated command line passes dir as
// --user-data-dir (or names a path inside it).
func mentions(cmdline, dir string) bool {
	for _, arg := range strings.Split(cmdline, "\x00") {
		if v, ok := strings.CutPrefix(arg, "--user-data-dir="); ok && filepath.Clean(v) == dir {
			return true
		}
	}
	return false
}

// terminate ends Chromium's tree: SIGTERM to the group, then SIGKILL to
// whatever is left of it (and of any process still naming the profile)
// after grace. It reports the processes that would not die.
func terminate(pgid int, profile string, grace time.Duration) []int {
	if pgid > 1 {
		syscall.Kill(-pgid, syscall.SIGTERM)
	}
	for _, pid := range Leftovers(0, profile) {
		syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if len(Leftovers(pgid, profile)) == 0 {
			return nil
		}
		time.Sleep(25 * time.Millisecond)
	}
	if pgid > 1 {
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
	for _, pid := range Leftovers(pgid, profile) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline = time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		left := Leftovers(pgid, profile)
		if len(left) == 0 {
			return nil
		}
		time.Sleep(25 * time.Millisecond)
	}
	return Leftovers(pgid, profile)
}

// lockFile takes an exclusive flock on path, waiting for another aw call
// driving the same session unless nowait. The lock dies with the process.
func lockFile(path string, nowait ...bool) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_EX
	if len(nowait) > 0 && nowait[0] {
		how |= syscall.LOCK_NB
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

const supported = true
