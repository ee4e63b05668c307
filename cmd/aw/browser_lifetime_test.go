package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/browser"
	"github.com/agentic-workspace/aw/engine/proc"
)

// watchdogOf reads the watchdog pid of a session record.
func watchdogOf(t *testing.T, record string) int {
	t.Helper()
	var sess browser.Session
	raw, err := os.ReadFile(record)
	if err != nil || json.Unmarshal(raw, &sess) != nil || sess.WatchdogPid <= 0 {
		t.Fatalf("session record %s has no watchdog: %v %s", record, err, raw)
	}
	return sess.WatchdogPid
}

// processAlive: pid runs and is not a zombie.
func processAlive(pid int) bool {
	st, ok := proc.Read(pid)
	return ok && st.Living()
}

// chromiumGone waits up to within for Chromium under dir to have ended.
func chromiumGone(t *testing.T, dir string, within time.Duration) bool {
	t.Helper()
	deadline := time.Now().Add(within)
	for len(chromiumUnder(dir)) > 0 {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}

// TestBrowserEndsItself: a session nobody calls again closes after its
// idle limit, by its own watchdog, record and profile included.
func TestBrowserEndsItself(t *testing.T) {
	requireChromium(t)
	dir := browserWorkspace(t, 2, `, "idleSeconds": 2`)
	r := runAW(t, dir, nil, "browser", "open")
	okEnv(t, r, "open")
	id := pageField(t, r, ".data.sessionId")
	if len(chromiumUnder(dir)) == 0 {
		t.Fatal("no Chromium after open")
	}
	if !chromiumGone(t, dir, 2*time.Second+2*browser.WatchInterval+5*time.Second) {
		t.Fatalf("an idle session's Chromium still runs: %v", chromiumUnder(dir))
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := os.Stat(filepath.Join(dir, ".agentic", "browser", id+".json"))
		if os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the idle session's record is still there")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(dir, ".agentic", "browser", id)); !os.IsNotExist(err) {
		t.Fatalf("the idle session's profile is still there (%v)", err)
	}
}

// TestBrowserEndsWithItsWorkspace: deleting the workspace ends its
// sessions within one check of the watchdog.
func TestBrowserEndsWithItsWorkspace(t *testing.T) {
	requireChromium(t)
	dir := browserWorkspace(t, 2, "")
	okEnv(t, runAW(t, dir, nil, "browser", "open"), "open")
	// As rm -rf would: Chromium writes into its profile while it runs, so
	// a removal can find a directory refilled; it is retried, as a user
	// would, until it succeeds.
	deadline := time.Now().Add(browser.WatchInterval + 5*time.Second)
	for err := os.RemoveAll(dir); err != nil; err = os.RemoveAll(dir) {
		if time.Now().After(deadline) {
			t.Fatalf("the workspace cannot be removed: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !chromiumGone(t, dir, browser.WatchInterval+5*time.Second) {
		t.Fatalf("Chromium of a deleted workspace still runs: %v", chromiumUnder(dir))
	}
	// The same when only the session's profile goes (moved away in one
	// step: Chromium keeps writing into it while it runs).
	dir2 := browserWorkspace(t, 2, "")
	r := runAW(t, dir2, nil, "browser", "open")
	okEnv(t, r, "open")
	session := filepath.Join(dir2, ".agentic", "browser", pageField(t, r, ".data.sessionId"))
	watchdog := watchdogOf(t, session+".json")
	if err := os.Rename(session, session+".moved"); err != nil {
		t.Fatal(err)
	}
	if !chromiumGone(t, dir2, browser.WatchInterval+5*time.Second) {
		t.Fatalf("Chromium whose profile was removed still runs: %v", chromiumUnder(dir2))
	}
	// The watchdog removes the session's record and exits.
	deadline = time.Now().Add(5 * time.Second)
	for exists(session+".json") || processAlive(watchdog) {
		if time.Now().After(deadline) {
			t.Fatalf("record left: %v, watchdog %d alive: %v", exists(session+".json"), watchdog, processAlive(watchdog))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestBrowserMaxSessions: opening one more than browser.maxSessions closes
// the session unused the longest, and the envelope says which.
func TestBrowserMaxSessions(t *testing.T) {
	requireChromium(t)
	dir := browserWorkspace(t, 2, `, "maxSessions": 2`)
	var ids []string
	for i := 0; i < 2; i++ {
		r := runAW(t, dir, nil, "browser", "open")
		okEnv(t, r, "open")
		ids = append(ids, pageField(t, r, ".data.sessionId"))
	}
	// The first is used again: the second is now the one unused longest.
	okEnv(t, runAW(t, dir, nil, "browser", "read", ids[0]), "read")
	r := runAW(t, dir, nil, "browser", "open")
	okEnv(t, r, "third open")
	if got := pageField(t, r, ".data.evicted"); got != ids[1] {
		t.Fatalf("evicted %q, want %s: %s", got, ids[1], r.Stdout)
	}
	l := runAW(t, dir, nil, "browser", "list")
	okEnv(t, l, "list")
	live := map[string]bool{}
	for _, s := range l.field(t, ".data.sessions").([]any) {
		live[s.(map[string]any)["sessionId"].(string)] = true
	}
	if len(live) != 2 || !live[ids[0]] || live[ids[1]] || !live[pageField(t, r, ".data.sessionId")] {
		t.Fatalf("sessions after the third open: %v", live)
	}
	for _, id := range []string{ids[0], pageField(t, r, ".data.sessionId")} {
		okEnv(t, runAW(t, dir, nil, "browser", "close", id), "close")
	}
}

// TestBrowserStaleEndedByGC: capabilities lists a session's Chromium and
// watchdog; a Chromium whose record is gone (and whose watchdog was
// killed, so nothing else would notice) is ended by aw gc.
func TestBrowserStaleEndedByGC(t *testing.T) {
	requireChromium(t)
	dir := browserWorkspace(t, 2, "")
	r := runAW(t, dir, nil, "browser", "open")
	okEnv(t, r, "open")
	id := pageField(t, r, ".data.sessionId")
	procs := owned(t, runAW(t, dir, nil, "inspect", "capabilities"), ".data.processes")
	record := filepath.Join(dir, ".agentic", "browser", id+".json")
	watchdog := watchdogOf(t, record)
	if procs["browser/"+id] <= 0 || procs["browser-watchdog/"+id] != watchdog {
		t.Fatalf("capabilities processes: %v", procs)
	}
	syscall.Kill(watchdog, syscall.SIGKILL)
	if err := os.Remove(record); err != nil {
		t.Fatal(err)
	}
	g := runAWEnv(t, dir, nil, approver(t), "gc")
	if g.Code != 0 || owned(t, g, ".data.ended")["browser/"+id] <= 0 {
		t.Fatalf("gc should end the unrecorded Chromium: %s", g.Stdout)
	}
	if left := chromiumUnder(dir); len(left) > 0 {
		t.Fatalf("Chromium without a record still runs after gc: %v", left)
	}
}
