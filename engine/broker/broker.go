// Package broker is the per-workspace process that holds what must outlive
// one aw call: language servers, the debug session, the interpreters of aw
// eval, and the watch of the tree that spares the search index a stat of
// every file (engine/treewatch).
// Each aw call is a new process and a language server takes seconds to
// warm up, so the first call that needs one starts the broker (`aw broker
// serve`, a detached aw) and every later call reaches it over a unix
// socket.
//
// The broker knows nothing of language servers: it hosts Services, each a
// named kind of long-lived resource with one entry point (Call), a list of
// what it holds (Held) and an end (Close). Everything else is the
// broker's:
//
//   - Exactly one per workspace: the broker holds an exclusive flock on
//     .agentic/broker/lock for its whole life; a second one exits at once.
//     Starters serialise on .agentic/broker/start.lock, so ten concurrent
//     first calls start one broker.
//   - The socket lives under $XDG_RUNTIME_DIR/aw, else <tmp>/aw-<uid>, in a
//     directory only the user can enter (checked, not assumed), named by a
//     hash of the root: a socket path over ~107 bytes cannot be bound, and a
//     workspace path can be any length.
//   - A version handshake: the broker answers hello with its build identity
//     (the executable's path, size and modification time, and the wire
//     protocol); a caller of another build stops it and starts its own, so an
//     upgraded aw never talks to a broker of the old one.
//   - It ends itself: after broker.idleSeconds without a call (unless a
//     resource it holds asks to live longer: a debug session, to its TTL),
//     or as soon as its owner record (.agentic/broker/broker.json) names
//     another process or is gone, or the workspace's .agentic/ is gone
//     (checked every CheckInterval). What it started dies with it: servers run under the OS
//     sandbox with die-with-parent (or a parent-death signal where the
//     sandbox is not bubblewrap).
//   - Stale state (a socket nobody listens on, a record of a dead broker) is
//     removed by the next start.
//   - Where none runs (broker.mode per-call, or a platform without unix
//     sockets), a Standalone service's call runs in the calling process
//     and ends with it (percall.go).
//
// Decisions where the product contract is silent: the socket's directory
// is the only access control (a process of the same user can reach the
// broker, as it can read the workspace itself); the broker is aw itself and
// runs unsandboxed like a job supervisor, while every process it starts is
// sandboxed; a caller of a different build always replaces the running
// broker (the last aw to call wins, so two installed versions alternating
// restart servers rather than talk across versions).
package broker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// Protocol is the wire version of the broker's calls; it is part of the
// build identity.
const Protocol = 1

// CheckInterval is how often the broker looks at its record, its
// workspace and its idle time.
const CheckInterval = time.Second

// Service is one kind of long-lived resource the broker hosts.
type Service interface {
	// Call runs one method of the service ("definition") for a workspace
	// opened for this call. The result is sent back as JSON.
	Call(ctx context.Context, ws *workspace.Workspace, method string, params json.RawMessage) (any, error)
	// Held lists what the service holds now.
	Held() []Held
	// Close ends everything the service holds.
	Close()
}

// Served answers a call the broker makes back to the aw call it is
// serving (a cell's bridged tool call), on the same connection.
type Served func(ctx context.Context, method string, params json.RawMessage) (any, error)

// Held is one resource a service holds, as status shows it.
type Held struct {
	Service    string `json:"service"` // filled by the broker
	Kind       string `json:"kind"`    // gopls, pyright, ...
	Key        string `json:"key"`     // what it serves (a root, relative)
	Pid        int    `json:"pid,omitempty"`
	State      string `json:"state"` // starting, ready, failed
	AgeSeconds int64  `json:"ageSeconds"`
	IdleSecond int64  `json:"idleSeconds"`
	Detail     string `json:"detail,omitempty"` // why it failed
	// Until keeps the broker past its idle limit up to this time: a
	// resource whose own lifetime is longer than the idle exit (a debug
	// session lives to its TTL, idle or not). Zero: the idle exit applies.
	Until time.Time `json:"-"`
}

// Status is what the running broker reports.
type Status struct {
	Running     bool   `json:"running"`
	Mode        string `json:"mode"` // daemon, per-call (broker.mode, or a platform without a broker)
	Pid         int    `json:"pid,omitempty"`
	Identity    string `json:"identity,omitempty"`
	Socket      string `json:"socket"`
	AgeSeconds  int64  `json:"ageSeconds,omitempty"`
	IdleSeconds int64  `json:"idleSeconds,omitempty"` // since the last call
	IdleLimit   int    `json:"idleLimitSeconds"`
	Calls       int64  `json:"calls,omitempty"`
	Held        []Held `json:"held"`
}

// Record is the broker's owner record, .agentic/broker/broker.json.
type Record struct {
	Pid       int       `json:"pid"`
	Start     uint64    `json:"processStart"` // clock ticks since boot, where /proc tells
	Identity  string    `json:"identity"`
	Socket    string    `json:"socket"`
	StartedAt time.Time `json:"startedAt"`
}

// hello is the handshake's answer.
type hello struct {
	Identity string `json:"identity"`
	Pid      int    `json:"pid"`
}

// Dir is the broker's directory in the store.
func Dir(ws *workspace.Workspace) string { return ws.StatePath("broker") }

func recordPath(root string) string {
	return filepath.Join(root, workspace.StateDir, "broker", "broker.json")
}

// Identity is this build's identity: a broker of another one is replaced.
func Identity() string {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Sprintf("p%d", Protocol)
	}
	st, err := os.Stat(exe)
	if err != nil {
		return fmt.Sprintf("p%d %s", Protocol, exe)
	}
	return fmt.Sprintf("p%d %s %d %d", Protocol, exe, st.Size(), st.ModTime().UnixNano())
}

// SocketPath is the socket of root's broker: a short, private directory
// and a name hashed from the root.
func SocketPath(root string, getenv func(string) string) (string, error) {
	sum := sha256.Sum256([]byte(root))
	name := hex.EncodeToString(sum[:8]) + ".sock"
	var dir string
	if rt := getenv("XDG_RUNTIME_DIR"); rt != "" && filepath.IsAbs(rt) {
		dir = filepath.Join(rt, "aw")
	}
	if dir == "" || len(filepath.Join(dir, name)) > maxSocketPath {
		dir = filepath.Join(os.TempDir(), "aw-"+strconv.Itoa(os.Getuid()))
	}
	if len(filepath.Join(dir, name)) > maxSocketPath {
		dir = filepath.Join("/tmp", "aw-"+strconv.Itoa(os.Getuid()))
	}
	if err := privateDir(dir); err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}

// maxSocketPath keeps under the smallest sun_path (104 bytes on macOS,
// 108 on Linux, both with the terminating NUL).
const maxSocketPath = 100

// privateDir creates dir 0700, or checks an existing one is a directory of
// this user that nobody else may enter: another user who made it first
// could otherwise listen in the broker's place.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot create the broker's socket directory %s: %v", dir, err)
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() || st.Mode().Perm()&0o077 != 0 || !ownedByMe(st) {
		return fmt.Errorf("the broker's socket directory %s is not a private directory of this user (mode %v); remove it", dir, st.Mode())
	}
	return nil
}

func idleLimit(ws *workspace.Workspace) time.Duration {
	return time.Duration(ws.Settings.Broker.IdleSeconds) * time.Second
}
