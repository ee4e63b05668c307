package browser

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/sandbox"
	"github.com/agentic-workspace/aw/engine/store"
)

// defaultIdle is the idle limit of a session recorded before sessions
// carried their own (browser.idleSeconds).
const defaultIdle = 30 * time.Minute

// Session is .agentic/browser/<session_id>.json: what the next aw call
// needs to find Chromium again and to end it.
type Session struct {
	ID           string    `json:"id"`
	Pid          int       `json:"pid"`
	ProcessStart uint64    `json:"processStart,omitempty"`
	Executable   string    `json:"executable"`
	WebSocketURL string    `json:"webSocketUrl"`
	Port         int       `json:"port"`
	UserDataDir  string    `json:"userDataDir"`
	TargetID     string    `json:"targetId"`
	URL          string    `json:"url"`
	Title        string    `json:"title"`
	CreatedAt    time.Time `json:"createdAt"`
	LastUsedAt   time.Time `json:"lastUsedAt"`
	// Sandbox is the OS sandbox Chromium was started in.
	Sandbox *sandbox.Report `json:"sandbox,omitempty"`
	// IdleSeconds is how long the session may go unused before it ends
	// (browser.idleSeconds when it opened).
	IdleSeconds int64 `json:"idleSeconds,omitempty"`
	// WatchdogPid is the session's watchdog (see Watch).
	WatchdogPid   int    `json:"watchdogPid,omitempty"`
	WatchdogStart uint64 `json:"watchdogStart,omitempty"`
}

// idleLimit is how long the session may go unused.
func (s *Session) idleLimit() time.Duration {
	if s.IdleSeconds > 0 {
		return time.Duration(s.IdleSeconds) * time.Second
	}
	return defaultIdle
}

// idle reports whether the session has gone unused past its limit.
func (s *Session) idle(now time.Time) bool { return now.Sub(s.LastUsedAt) > s.idleLimit() }

func sessionPath(s *store.Store, id string) string { return s.Path("browser", id+".json") }
func sessionDir(s *store.Store, id string) string  { return s.Path("browser", id) }

// load reads a session record; NOT_FOUND names how to see the others.
func load(s *store.Store, id string) (*Session, error) {
	if !store.ValidID(id, "session") {
		return nil, envelope.Errorf(envelope.InvalidInput, "%q is not a session id (session_…); `aw browser list` shows the sessions", id).With("session_id", id)
	}
	var sess Session
	found, err := s.ReadJSON(sessionPath(s, id), &sess)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, envelope.Errorf(envelope.NotFound, "no browser session %s (closed, ended after going unused for browser.idleSeconds, or never opened); `aw browser list` shows the sessions, `aw browser open URL` starts one", id).With("session_id", id)
	}
	return &sess, nil
}

// save writes the record under the store lock.
func save(s *store.Store, sess *Session) error {
	return store.Update(s, sessionPath(s, sess.ID), func(cur *Session) error {
		*cur = *sess
		return nil
	})
}

// touch records a use: the page's URL and title and the time.
func touch(s *store.Store, id, url, title string, target string) error {
	return store.Update(s, sessionPath(s, id), func(cur *Session) error {
		if cur.ID == "" {
			return envelope.Errorf(envelope.NotFound, "browser session %s was closed during this call", id)
		}
		cur.URL, cur.Title, cur.LastUsedAt = url, title, time.Now().UTC()
		if target != "" {
			cur.TargetID = target
		}
		return nil
	})
}

// all reads every session record, oldest first.
func all(s *store.Store) ([]*Session, error) {
	entries, err := os.ReadDir(s.Path("browser"))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, envelope.Errorf(envelope.Internal, "cannot list %s: %v", s.Path("browser"), err)
	}
	var out []*Session
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() || !store.ValidID(id, "session") {
			continue
		}
		var sess Session
		found, err := s.ReadJSON(filepath.Join(s.Path("browser"), e.Name()), &sess)
		if err != nil {
			return nil, err
		}
		if found {
			out = append(out, &sess)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// Status of a session as list reports it.
const (
	Live = "live" // the process runs and its DevTools endpoint answers
	// Unresponsive: the process runs but its DevTools endpoint does not
	// answer (hung, or still starting).
	Unresponsive = "unresponsive"
	Dead         = "dead" // the process is gone (crashed, killed, machine restarted)
)

// status checks the pid (and its start time, so a recycled pid does not
// count) and then the DevTools endpoint.
func status(ctx context.Context, sess *Session) string {
	if !alive(sess.Pid, sess.ProcessStart) {
		return Dead
	}
	var v struct {
		Browser string `json:"Browser"`
	}
	if err := devtoolsJSON(ctx, sess.Port, "/json/version", &v); err != nil || v.Browser == "" {
		return Unresponsive
	}
	return Live
}

// end kills the session's Chromium tree and its watchdog, and removes its
// record, profile and log. It reports processes that would not die.
func end(s *store.Store, sess *Session) (left []int) {
	if sess.WatchdogPid != os.Getpid() && alive(sess.WatchdogPid, sess.WatchdogStart) {
		stop(sess.WatchdogPid)
	}
	pgid := 0
	if alive(sess.Pid, sess.ProcessStart) {
		pgid = sess.Pid // the session leader's pid is its group id
	}
	left = terminate(pgid, sess.UserDataDir, 3*time.Second)
	if len(left) == 0 {
		os.RemoveAll(sessionDir(s, sess.ID))
	}
	unlock, err := s.Lock()
	if err == nil {
		os.Remove(sessionPath(s, sess.ID))
		os.Remove(lockPath(s, sess.ID))
		unlock()
	}
	return left
}

// reap ends every session idle past its limit, and returns the ids it
// ended. A session a call is using right now (its lock is held) is not
// idle.
func reap(s *store.Store, now time.Time) []string {
	list, err := all(s)
	if err != nil {
		return nil
	}
	var out []string
	for _, sess := range list {
		if sess.idle(now) && endIdle(s, sess.ID, now) {
			out = append(out, sess.ID)
		}
	}
	return out
}

// endIdle ends session id when nobody is using it and it is still idle
// once its lock is taken (another call may have used it meanwhile).
func endIdle(s *store.Store, id string, now time.Time) bool {
	unlock, err := lockFile(lockPath(s, id), true)
	if err != nil {
		return false
	}
	defer unlock()
	cur, err := load(s, id)
	if err != nil || !cur.idle(now) {
		return false
	}
	end(s, cur)
	return true
}

// lockPath is the session's call lock, beside its record so that it
// survives the removal of the session directory.
func lockPath(s *store.Store, id string) string { return s.Path("browser", "."+id+".lock") }
