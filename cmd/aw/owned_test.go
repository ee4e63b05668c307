package main

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"
)

// owned reads data.processes (or data.ended) as kind/id -> pid.
func owned(t *testing.T, r Result, path string) map[string]int {
	t.Helper()
	out := map[string]int{}
	v, _ := lookup(any(r.Env), path)
	list, _ := v.([]any)
	for _, p := range list {
		m := p.(map[string]any)
		out[fmt.Sprint(m["kind"], "/", m["id"])] = int(m["pid"].(float64))
	}
	return out
}

// TestProcessesOwnedAndStaleEnded: capabilities lists what runs for the
// workspace with pids; a job whose supervisor was killed is ended by aw gc
// (unconfined, so the process did outlive its supervisor).
func TestProcessesOwnedAndStaleEnded(t *testing.T) {
	requireProc(t)
	dir := cmdWorkspace(t, 2, `, "sandbox": "off"`)
	if _, ok := runAW(t, dir, nil, "inspect", "capabilities").Env["data"].(map[string]any)["processes"]; ok {
		t.Fatal("processes listed while nothing runs")
	}
	r := runAW(t, dir, nil, "command", "start", "--", "sleep", "60")
	id := str(t, r, ".data.jobId")
	pid := int(r.field(t, ".data.pid").(float64))
	c := runAW(t, dir, nil, "inspect", "capabilities")
	procs := owned(t, c, ".data.processes")
	sup := procs["job-supervisor/"+id]
	if procs["job/"+id] != pid || sup <= 0 {
		t.Fatalf("capabilities processes: %v (job pid %d): %s", procs, pid, c.Stdout)
	}
	if err := syscall.Kill(sup, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for processAlive(sup) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	g := runAWEnv(t, dir, nil, approver(t), "gc")
	if g.Code != 0 || owned(t, g, ".data.ended")["job/"+id] != pid {
		t.Fatalf("gc should end the orphaned job: %s", g.Stdout)
	}
	deadline = time.Now().Add(5 * time.Second)
	for len(groupLeft(pid)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if left := groupLeft(pid); len(left) > 0 {
		t.Fatalf("the orphaned job still runs after gc: %v", left)
	}
	if s := runAW(t, dir, nil, "command", "status", id); s.field(t, ".data.status") != "cancelled" {
		t.Fatalf("status after gc: %s", s.Stdout)
	}
}

// TestJobEndsWithItsWorkspace: a background job whose workspace is deleted
// is stopped by its supervisor within one check (unconfined, where nothing
// else would stop it).
func TestJobEndsWithItsWorkspace(t *testing.T) {
	requireProc(t)
	dir := cmdWorkspace(t, 2, `, "sandbox": "off"`)
	nap := uniqueSleep()
	r := runAW(t, dir, nil, "command", "start", "--", "sleep", nap)
	if r.Code != 0 {
		t.Fatalf("start: %s", r.Stdout)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(procsWith(nap)) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(2*time.Second + 2*time.Second + 5*time.Second)
	for len(procsWith(nap)) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if left := procsWith(nap); len(left) > 0 {
		t.Fatalf("a job of a deleted workspace still runs: %v", left)
	}
}
