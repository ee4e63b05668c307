package main

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeChromium is a browser.executable that only records that it was
// started: the open gate must decide before any browser starts.
func fakeChromium(t *testing.T) (exe, started string) {
	t.Helper()
	bin := t.TempDir()
	started = filepath.Join(bin, "started")
	exe = filepath.Join(bin, "chromium")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\ntouch '"+started+"'\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return exe, started
}

// TestBrowserOpenGateBeforeChromium: open with a URL is web egress, decided
// before Chromium starts (no Chromium needed here): Manual stages it with
// the exact resume call, Plan refuses it, and neither starts a browser or
// leaves a session behind. open without a URL is not gated.
func TestBrowserOpenGateBeforeChromium(t *testing.T) {
	exe, started := fakeChromium(t)
	dir := t.TempDir()
	// The fake records its start beside itself, which the OS sandbox
	// would refuse: this test is about the gate, so the sandbox is off.
	extra := `, "executable": "` + exe + `"}, "commands": {"sandbox": "off"`
	const url = "http://127.0.0.1:9/page"
	writeBrowserConfig(t, dir, 0, true, extra)
	r := runAW(t, dir, nil, "browser", "open", url)
	if r.Code != 3 || pageField(t, r, ".data.status") != "pending_approval" || pageField(t, r, ".data.approval.kind") != "browser" ||
		pageField(t, r, ".data.approval.resume.tool") != "workspace_browser" ||
		pageField(t, r, ".data.approval.resume.arguments.action") != "open" ||
		pageField(t, r, ".data.approval.resume.arguments.url") != url {
		t.Fatalf("Manual open with a URL: exit %d %s", r.Code, r.Stdout)
	}
	first := pageField(t, r, ".data.approval.id")
	if again := runAW(t, dir, nil, "browser", "open", url); pageField(t, again, ".data.approval.id") != first {
		t.Fatalf("a re-issued open staged a second approval: %s", again.Stdout)
	}
	// The same URL through research fetch is the same kind of decision.
	writeFile(t, filepath.Join(dir, ".agentic", "config.json"), `{"permissionMode": 0, "research": {"enabled": true, "allowPrivateNetwork": true}}`)
	if f := runAW(t, dir, nil, "research", "fetch", url); f.Code != 3 || pageField(t, f, ".data.status") != "pending_approval" {
		t.Fatalf("research fetch in Manual mode: %s", f.Stdout)
	}

	writeBrowserConfig(t, dir, 1, true, extra)
	expect(t, runAW(t, dir, nil, "browser", "open", url), 1, "APPROVAL_REQUIRED")

	if _, err := os.Stat(started); err == nil {
		t.Fatal("a gated open started the browser")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".agentic", "browser", "session_*")); len(m) > 0 {
		t.Fatalf("a gated open left session files: %v", m)
	}

	// Without a URL nothing leaves the machine: no gate, the browser starts
	// (and this fake one fails), in Manual and in Plan mode.
	for _, mode := range []int{0, 1} {
		writeBrowserConfig(t, dir, mode, true, extra)
		r = runAW(t, dir, nil, "browser", "open")
		if r.Code == 3 || pageField(t, r, ".error.code") == "APPROVAL_REQUIRED" {
			t.Fatalf("open without a URL was gated in mode %d: %s", mode, r.Stdout)
		}
		if _, err := os.Stat(started); err != nil {
			t.Fatalf("open without a URL did not start the browser in mode %d: %s", mode, r.Stdout)
		}
		os.Remove(started)
	}
}

// TestBrowserOpenGate: with a real Chromium, a Manual open stages, starts
// nothing, and after the human accepts, the resume (the same call) opens
// the page; the approval is used once. Plan refuses; Auto runs.
func TestBrowserOpenGate(t *testing.T) {
	requireChromium(t)
	srv := site(t)
	dir := browserWorkspace(t, 0, "")
	tok := approver(t)
	url := srv.URL + "/"
	r := runAW(t, dir, nil, "browser", "open", url)
	if r.Code != 3 || pageField(t, r, ".data.approval.kind") != "browser" {
		t.Fatalf("Manual open: exit %d %s", r.Code, r.Stdout)
	}
	id := pageField(t, r, ".data.approval.id")
	if left := chromiumUnder(dir); len(left) > 0 {
		t.Fatalf("a staged open started Chromium: %v", left)
	}
	if a := runAWEnv(t, dir, nil, tok, "approval", "accept", id); a.Code != 0 {
		t.Fatalf("accept: %s", a.Stdout)
	}
	r = runAW(t, dir, nil, "browser", "open", url)
	okEnv(t, r, "the resumed open")
	session := pageField(t, r, ".data.sessionId")
	defer runAW(t, dir, nil, "browser", "close", session)
	if pageField(t, r, ".data.title") != "Start page" {
		t.Fatalf("the resumed open is not at the page: %s", r.Stdout)
	}
	if st := state(t, dir); st[id].Status != "consumed" {
		t.Fatalf("the approval is %s after the open, want consumed", st[id].Status)
	}
	if again := runAW(t, dir, nil, "browser", "open", url); again.Code != 3 {
		t.Fatalf("one approval opened twice: %s", again.Stdout)
	}

	writeBrowserConfig(t, dir, 1, true, "")
	expect(t, runAW(t, dir, nil, "browser", "open", url), 1, "APPROVAL_REQUIRED")

	writeBrowserConfig(t, dir, 2, true, "")
	r = runAW(t, dir, nil, "browser", "open", url)
	okEnv(t, r, "Auto open")
	runAW(t, dir, nil, "browser", "close", pageField(t, r, ".data.sessionId"))
}
