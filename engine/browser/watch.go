package browser

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/proc"
	"github.com/agentic-workspace/aw/engine/store"
)

// WatchInterval is how often a session's watchdog looks at its session.
const WatchInterval = 2 * time.Second

// Watch is a session's watchdog (`aw browser watch`, which open starts
// beside Chromium): a detached process that ends the session's Chromium
// when the session has gone unused past its limit, or when the workspace's
// .agentic/, the session's record or its profile directory is gone, so a
// browser never outlives its use because no further aw call came. It
// exits when Chromium has (a crash stays recorded: the next list shows the
// session dead). A watchdog that is itself killed leaves the older rule:
// the next browser call of any aw ends idle sessions.
//
// Chromium's pid and start time come on the command line, not from the
// record: the workspace may be gone before the watchdog first looks.
func Watch(root, id string, pid int, start uint64) error {
	s := store.Open(root)
	if !store.ValidID(id, "session") || pid <= 1 {
		return envelope.Errorf(envelope.InvalidInput, "watch needs a session id and its Chromium pid")
	}
	sess := &Session{ID: id, Pid: pid, ProcessStart: start, UserDataDir: filepath.Join(sessionDir(s, id), "profile")}
	for {
		time.Sleep(WatchInterval)
		if !alive(sess.Pid, sess.ProcessStart) {
			return nil
		}
		cur, err := load(s, id)
		if err != nil || !exists(s.Dir) || !exists(sess.UserDataDir) {
			terminate(sess.Pid, sess.UserDataDir, 3*time.Second)
			if err == nil {
				end(s, cur)
			}
			return nil
		}
		if cur.idle(time.Now()) && endIdle(s, id, time.Now()) {
			return nil
		}
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// watchCommand is how aw re-executes itself as a session's watchdog.
var watchCommand = func(root string, sess *Session) (string, []string, error) {
	exe, err := os.Executable()
	return exe, []string{"--root", root, "browser", "watch", sess.ID, strconv.Itoa(sess.Pid), strconv.FormatUint(sess.ProcessStart, 10)}, err
}

// startWatch starts sess's watchdog and records its pid. It runs outside
// the workspace (its working directory is /) with nothing of aw's
// environment but PATH: it reads only the session's record.
func startWatch(s *store.Store, root string, sess *Session) error {
	exe, args, err := watchCommand(root, sess)
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // reaped while this aw runs (aw mcp lives long)
	sess.WatchdogPid, sess.WatchdogStart = cmd.Process.Pid, proc.Start(cmd.Process.Pid)
	return save(s, sess)
}
