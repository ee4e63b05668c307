package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// maxCarveOuts bounds the read-only and hidden paths of one policy: each
// is a mount (or a Landlock expansion), and a workspace with more denied
// files than this is refused rather than half hidden.
const maxCarveOuts = 4096

// For builds the policy of a process started in cwd (absolute, inside the
// root) with environment env, from the workspace's settings: the root
// read-write, .git, .agentic and protectedPatterns matches read-only,
// denyPaths matches and aw's user configuration hidden, the network as
// commands.network says.
func For(ws *workspace.Workspace, cwd string, env []string) (*Policy, error) {
	p := base(ws, env)
	p.Cwd, p.Network = cwd, ws.Settings.Commands.Network
	p.Caches = Caches(p.State, p.Home, func(k string) string { return lookup(env, k) })
	if err := p.walk(ws, false); err != nil {
		return nil, err
	}
	return p, nil
}

// Process is what a process aw starts that is not a command needs beyond
// the rules every sandboxed process gets (the rest of the file system
// read-only, an empty home, a private /tmp and /run, aw's user
// configuration hidden).
type Process struct {
	Workspace Access   // ReadOnly (denyPaths matches still hidden) or Invisible
	Writable  []string // its own directories, created by the caller
	Readable  []string // directories it needs that the empty home or private /tmp would hide (its installation)
	Network   bool     // the process reaches the network itself (gated by aw elsewhere)
	Detached  bool     // outlives the aw call that starts it (see Policy.Detached)
	Cwd       string   // where it starts: a Writable directory, or inside the root
	Env       []string // its environment (PATH directories under the home stay usable)
}

// ForProcess builds the policy of a non-command process (a browser; later
// language servers, debug adapters): no toolchain caches, no write access
// to the workspace, its own directories writable.
func ForProcess(ws *workspace.Workspace, pr Process) (*Policy, error) {
	if pr.Workspace == ReadWrite {
		return nil, fmt.Errorf("sandbox: a process that writes the workspace is a command; use For")
	}
	p := base(ws, pr.Env)
	p.Workspace, p.Network, p.Detached, p.Cwd = pr.Workspace, pr.Network, pr.Detached, pr.Cwd
	for _, d := range pr.Writable {
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			return nil, fmt.Errorf("sandbox: the writable directory %s: %v", d, err)
		}
		p.Writable = append(p.Writable, real)
	}
	for _, d := range HiddenPathDirs(strings.Join(pr.Readable, string(filepath.ListSeparator)), p.Home) {
		if !slices.Contains(p.PathDirs, d) {
			p.PathDirs = append(p.PathDirs, d)
		}
	}
	if p.Workspace == ReadOnly {
		if err := p.walk(ws, true); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// base is what every policy of ws starts from: the root, the home to
// replace, the private state, PATH directories the empty home would hide,
// and aw's user configuration hidden.
func base(ws *workspace.Workspace, env []string) *Policy {
	p := &Policy{Root: ws.Root}
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		if real, err := filepath.EvalSymlinks(home); err == nil && real != "/" {
			p.Home = real
		}
	}
	p.State = stateFor(ws.Root)
	p.PathDirs = HiddenPathDirs(lookup(env, "PATH"), p.Home)
	if ws.ConfigHome != "" {
		if real, err := filepath.EvalSymlinks(filepath.Join(ws.ConfigHome, "aw")); err == nil {
			p.Hidden = append(p.Hidden, real)
		}
	}
	return p
}

// walkEntries finds the carve-outs under the root: protected names
// become read-only (and are still searched for denied ones), denied names
// become hidden. .git and .agentic are read-only whole and not searched.
// A symlink is never followed: a mount or rule on it would apply to its
// target.
func (p *Policy) walkEntries(w *walker, rel string, ents []entry, protected bool) error {
	j := w.j
	for _, e := range ents {
		r := e.Name()
		if rel != "" {
			r = rel + "/" + e.Name()
		}
		abs := filepath.Join(p.Root, filepath.FromSlash(r))
		symlink := e.symlink()
		switch {
		case j.DeniedBelow(r):
			if !symlink {
				p.Hidden = append(p.Hidden, abs)
			}
			continue
		case rel == "" && (e.Name() == ".git" || e.Name() == workspace.StateDir):
			p.ReadOnly = append(p.ReadOnly, abs)
			continue
		case !protected && !symlink && j.Protected(r):
			p.ReadOnly = append(p.ReadOnly, abs)
			if e.IsDir() {
				if err := p.descendWith(w, r, true); err != nil {
					return err
				}
			}
			continue
		}
		if len(p.ReadOnly)+len(p.Hidden) > maxCarveOuts {
			return &Denied{Reason: fmt.Sprintf("the workspace holds more than %d protected or denied paths; the sandbox cannot carve them all out. Narrow denyPaths and protectedPatterns, or remove the files", maxCarveOuts)}
		}
		if e.IsDir() && !symlink {
			if err := p.descendWith(w, r, protected); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *Policy) descendWith(w *walker, rel string, protected bool) error {
	ents, ok := p.entries(w, rel, protected)
	if !ok {
		return nil
	}
	return p.walkEntries(w, rel, ents, protected)
}

func lookup(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// Status is what `aw inspect capabilities` says about the sandbox: the
// mode, the mechanism commands would run in (or none and why), and
// whether they may reach the network.
type Status struct {
	Mode      Mode   `json:"mode"`
	Mechanism string `json:"mechanism"`
	Network   bool   `json:"network"`
	Reason    string `json:"reason,omitempty"`
}

// Describe reports the sandbox commands in ws would get, without walking
// the workspace.
func Describe(ws *workspace.Workspace) Status {
	mode := Mode(ws.Settings.Commands.Sandbox)
	st := Status{Mode: mode, Mechanism: None, Network: true}
	if mode == Off {
		st.Reason = "commands.sandbox is off: the human chose to run commands unconfined"
		return st
	}
	av := Detect(&Policy{Root: ws.Root, State: stateFor(ws.Root)})
	st.Mechanism = av.Mechanism
	if av.Mechanism == None {
		st.Reason = av.Reason
		if mode == Require {
			st.Reason += "; commands.sandbox is require, so commands are refused"
		}
		return st
	}
	st.Network = ws.Settings.Commands.Network
	if av.Mechanism == Landlock && av.Reason != "" {
		st.Reason = "the Landlock fallback, which enforces less: " + av.Reason
	}
	return st
}

// stateFor is the private state directory of a root under the user's
// cache directory (the temp directory when there is none).
func stateFor(root string) string {
	cacheHome, err := os.UserCacheDir()
	if err != nil {
		cacheHome = os.TempDir()
	}
	if real, err := filepath.EvalSymlinks(cacheHome); err == nil {
		cacheHome = real
	}
	return StateDir(cacheHome, root)
}

// ReasonUnavailable is details.reason of a process refused because
// commands.sandbox is require and no OS sandbox is available.
const ReasonUnavailable = "sandbox-unavailable"

// Refusal is the envelope error of a sandbox that could not be set up for
// what (a command, the browser): code with reason sandbox-unavailable
// when commands.sandbox is require and none exists, INTERNAL otherwise.
func Refusal(err error, code envelope.Code, what string) error {
	var d *Denied
	if errors.As(err, &d) {
		return envelope.Errorf(code,
			"%s. Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap), or have the human set commands.sandbox to auto (run %s unconfined when no sandbox exists) with `aw config set commands.sandbox auto`", d.Reason, what).
			With("reason", ReasonUnavailable).With("setting", "commands.sandbox")
	}
	return envelope.Errorf(envelope.Internal, "cannot set up the OS sandbox for %s: %v; check the cache directory's permissions, or have the human set commands.sandbox to off", what, err)
}
