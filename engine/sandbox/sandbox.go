// Package sandbox puts an operating-system sandbox under every process aw
// spawns. One Policy value says what the process may touch — the workspace
// root read-write; .git/, .agentic/ and every protectedPatterns match
// read-only; every denyPaths match unreadable; the rest of the file system
// read-only; a private /tmp; an empty home with the toolchain caches a
// build needs; the network only when commands.network is true — and Wrap
// turns it into the argv of the strongest mechanism this machine has:
//
//   - Linux: bubblewrap (mount, PID, IPC, UTS and network namespaces; the
//     tree dies with the process that started it, setsid or not);
//   - Linux without bubblewrap or user namespaces: Landlock, applied by aw
//     itself re-executed as a small parent that restricts itself, then runs
//     the command (Landlock cannot remap paths, so the home is hidden and
//     a private one given through HOME instead; see NotEnforced);
//   - macOS: sandbox-exec with a Seatbelt profile generated from the same
//     policy;
//   - Windows: none.
//
// The command policy (engine/policy) stays in front: the sandbox is the
// second wall, for what a program does with its own arguments, files and
// environment after the checker let it start. Every spawner (commands now;
// language servers, debug adapters and interpreters later) calls Wrap.
//
// Decisions where the product contract is silent:
//   - Writable toolchain caches (Go build cache, npm, pip, yarn) are the
//     sandbox's own, under the user's cache directory (aw/sandbox/cache),
//     shared by the sandboxed commands of every workspace and never the
//     user's own: a sandboxed process that could write the user's Go build
//     cache could plant an object that a later build outside the sandbox
//     links. They are shared rather than per workspace because a cold Go
//     build cache costs minutes on every new workspace. The Go module
//     cache is the user's own, read-only (its contents were checked
//     against go.sum when downloaded).
//   - Paths matched by denyPaths and protectedPatterns are found by a walk
//     of the workspace when the command starts (cached per directory by
//     change time, see walkcache.go); a file created later under such a
//     name is not covered by the sandbox of the running command (the next
//     one's covers it; the policy layer refuses aw's own tools on it).
//   - Processes that are not commands (the browser now; language servers
//     and debug adapters later) get their policy from ForProcess: the same
//     rules, the workspace read-only or not visible, their own directories
//     writable, detached from the aw call when they outlive it.
package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Mode is the commands.sandbox setting.
type Mode string

// The modes of commands.sandbox.
const (
	Auto    Mode = "auto"    // the strongest mechanism available; none is reported, not refused
	Require Mode = "require" // refuse to run without a sandbox
	Off     Mode = "off"     // the human's explicit choice: run unconfined
)

// Mechanisms, as named in data.sandbox.mechanism.
const (
	Bubblewrap = "bubblewrap"
	Landlock   = "landlock"
	Seatbelt   = "seatbelt"
	None       = "none"
)

// Access is how a sandboxed process sees the workspace root.
type Access string

// The ways a process sees the workspace: commands read and write it; a
// process that has no business with it (a browser) does not see it.
const (
	ReadWrite Access = ""          // commands: the root read-write, minus its carve-outs
	ReadOnly  Access = "read-only" // the root readable, denied paths hidden, nothing writable
	Invisible Access = "hidden"    // the root replaced by an empty directory
)

// Policy is what a sandboxed process may touch. Every path is absolute and
// symlink-free. For builds the policy of a command, ForProcess that of
// any other process aw starts (a browser; later language servers and debug
// adapters): the same fields, set differently.
type Policy struct {
	Root      string
	Workspace Access   // how the root is seen (ReadWrite unless said)
	ReadOnly  []string // under Root, kept read-only (.git, .agentic, protectedPatterns matches)
	Hidden    []string // not readable (denyPaths matches, aw's user config directory)
	Network   bool     // commands.network
	Home      string   // the user's home, replaced by an empty one ("" when unknown)
	// PathDirs are the PATH directories of the command's environment that
	// the sandbox would hide (under the home or a temporary directory):
	// made available read-only so the tools installed there still run.
	PathDirs []string
	Caches   []Cache
	// State is the private per-workspace directory that holds the Landlock
	// fallback's home and temporary directory, and the unreadable
	// placeholder that hides denied files.
	State string
	Cwd   string // where the command starts (inside Root, or a Writable directory)
	// Writable are the process's own directories, writable whatever the
	// rules above say about where they lie (a browser's session
	// directory, which is inside .agentic).
	Writable []string
	// Detached is a process that outlives the aw call that started it (a
	// browser session): it does not die with its parent, and stays in the
	// process group of the sandbox, so the caller, which must start it in
	// a session of its own (no controlling terminal), ends the whole tree
	// by signalling that group.
	Detached bool
}

// Cache is one toolchain cache made available inside the sandbox.
type Cache struct {
	Name     string `json:"name"`     // go-build, go-mod, npm, ...
	Env      string `json:"env"`      // the variable that points the toolchain at it
	Path     string `json:"path"`     // the directory used
	Writable bool   `json:"writable"` // private caches are; the user's own never are
}

// Report is data.sandbox: the mechanism that ran and what it enforced, or
// none and why.
type Report struct {
	Mechanism   string   `json:"mechanism"`
	Mode        Mode     `json:"mode"`
	Network     bool     `json:"network"`             // the process could reach the network
	Workspace   string   `json:"workspace,omitempty"` // how it saw the workspace, when not read-write
	Enforced    []string `json:"enforced,omitempty"`
	NotEnforced []string `json:"notEnforced,omitempty"`
	Caches      []Cache  `json:"caches,omitempty"`
	Reason      string   `json:"reason,omitempty"` // why none
}

// Summary is one line for a summary or a fact.
func (r Report) Summary() string {
	if r.Mechanism == None {
		return "sandbox: none (" + r.Reason + ")"
	}
	net := "without network"
	if r.Network {
		net = "with network"
	}
	if r.Workspace != "" {
		net += ", workspace " + r.Workspace
	}
	return "sandbox: " + r.Mechanism + ", " + net
}

// Availability is what this machine offers: the strongest mechanism, or
// None and why.
type Availability struct {
	Mechanism string `json:"mechanism"`
	Path      string `json:"path,omitempty"` // the bwrap or sandbox-exec executable
	ABI       int    `json:"abi,omitempty"`  // Landlock ABI version
	Reason    string `json:"reason,omitempty"`
}

// Denied is the error of a refused sandbox (commands.sandbox require with
// none available, or a policy the mechanism cannot express).
type Denied struct{ Reason string }

func (d *Denied) Error() string { return d.Reason }

// Wrap returns the argv that runs argv under the policy, and the report.
// Mode off, or auto with nothing available, returns argv unchanged with a
// none report; require with nothing available is a *Denied error.
func Wrap(p *Policy, mode Mode, argv []string) ([]string, Report, error) {
	if mode == Off {
		return WrapWith(Availability{}, p, mode, argv)
	}
	return WrapWith(Detect(p), p, mode, argv)
}

// WrapWith is Wrap with a known availability (a caller that detected once).
func WrapWith(av Availability, p *Policy, mode Mode, argv []string) ([]string, Report, error) {
	if mode == "" {
		mode = Auto
	}
	if mode == Off {
		return argv, Report{Mechanism: None, Mode: mode, Network: true,
			Reason: "commands.sandbox is off: the human chose to run commands unconfined"}, nil
	}
	if av.Mechanism == None {
		if mode == Require {
			return nil, Report{}, &Denied{Reason: "commands.sandbox is require and no OS sandbox is available: " + av.Reason}
		}
		return argv, Report{Mechanism: None, Mode: mode, Network: true, Reason: av.Reason}, nil
	}
	if len(argv) == 0 {
		return nil, Report{}, fmt.Errorf("sandbox: nothing to run")
	}
	if err := p.prepare(); err != nil {
		return nil, Report{}, err
	}
	r := Report{Mechanism: av.Mechanism, Mode: mode, Network: p.Network, Caches: p.Caches, Workspace: string(p.Workspace)}
	var out []string
	var err error
	switch av.Mechanism {
	case Bubblewrap:
		out = bwrapArgv(av.Path, p, argv)
		tree := "the process tree lives in its own PID namespace and dies with aw's supervisor, setsid or not"
		if p.Detached {
			tree = "the process tree lives in its own PID namespace and process group, which one signal ends"
		}
		r.Enforced = p.enforced(&r, homeReplaced, tree)
	case Landlock:
		out, err = landlockArgv(av.ABI, p, argv)
		if av.ABI < 4 {
			r.Network = true // this kernel's Landlock cannot restrict sockets
		}
		r.Enforced = p.enforced(&r, "the home directory unreadable; HOME points at a private, empty one (toolchain caches made available)", "the process runs under a parent that kills every descendant (setsid or not) when the process ends, is cancelled, times out or the parent is signalled")
		r.NotEnforced = landlockGaps(av.ABI, p)
	case Seatbelt:
		out = []string{av.Path, "-p", SeatbeltProfile(p), "--"}
		out = append(out, argv...)
		r.Enforced = p.enforced(&r, "the home directory unreadable (toolchain caches and tools on PATH readable)", "")
		r.NotEnforced = []string{"the process tree is not in a namespace of its own: a process that calls setsid leaves the group aw kills"}
	default:
		return nil, Report{}, fmt.Errorf("sandbox: unknown mechanism %q", av.Mechanism)
	}
	if err != nil {
		return nil, Report{}, err
	}
	return out, r, nil
}

const homeReplaced = "the home directory replaced by an empty one (toolchain caches made available)"

// enforced lists what every mechanism enforces from the policy, plus the
// mechanism's own line about the process tree.
func (p *Policy) enforced(r *Report, home, tree string) []string {
	var e []string
	switch p.Workspace {
	case ReadWrite:
		e = append(e, "workspace read-write; the rest of the file system read-only")
		e = append(e, fmt.Sprintf(".git, .agentic and protected paths read-only (%d paths)", len(p.ReadOnly)))
	case ReadOnly:
		e = append(e, "workspace and the rest of the file system read-only")
	case Invisible:
		e = append(e, "workspace not visible; the rest of the file system read-only")
	}
	if len(p.Writable) > 0 {
		e = append(e, fmt.Sprintf("writable: only the process's own directories (%d)", len(p.Writable)))
	}
	e = append(e, fmt.Sprintf("denyPaths matches and aw's user configuration unreadable (%d paths)", len(p.Hidden)))
	if p.replacesHome() {
		e = append(e, home)
	}
	e = append(e, "a private temporary directory")
	if !p.Network && !r.Network {
		e = append(e, "no network")
	}
	if tree != "" {
		e = append(e, tree)
	}
	return e
}

// replacesHome reports whether the home is hidden: always, unless it is
// the workspace root or lies inside it (a workspace that holds the home
// keeps it, with the root). A workspace inside the home is made visible
// again over the empty home.
func (p *Policy) replacesHome() bool {
	return p.Home != "" && !within(p.Root, p.Home)
}

// prepare creates the private state: the writable caches and the
// unreadable placeholder.
func (p *Policy) prepare() error {
	if p.State == "" {
		return fmt.Errorf("sandbox: the policy has no private state directory")
	}
	for _, c := range p.Caches {
		if c.Writable {
			if err := os.MkdirAll(c.Path, 0o700); err != nil {
				return fmt.Errorf("sandbox: cannot create the private %s cache %s: %v", c.Name, c.Path, err)
			}
		}
	}
	for _, d := range []string{"home", "tmp"} {
		if err := os.MkdirAll(filepath.Join(p.State, d), 0o700); err != nil {
			return fmt.Errorf("sandbox: cannot create %s: %v", filepath.Join(p.State, d), err)
		}
	}
	ph := p.placeholder()
	if fi, err := os.Lstat(ph); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm() == 0 && fi.Size() == 0 {
		return nil
	}
	os.Remove(ph)
	f, err := os.OpenFile(ph, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("sandbox: cannot create the placeholder %s: %v", ph, err)
	}
	return f.Close()
}

// placeholder is an empty file nobody may read: bound over denied files.
func (p *Policy) placeholder() string { return filepath.Join(p.State, "unreadable") }

// privateHome and privateTmp are the fallback's home and temp directory
// (bubblewrap uses fresh tmpfs mounts instead).
func (p *Policy) privateHome() string { return filepath.Join(p.State, "home") }
func (p *Policy) privateTmp() string  { return filepath.Join(p.State, "tmp") }

// StateDir is the private per-workspace directory of root under the
// user's cache directory.
func StateDir(cacheHome, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(cacheHome, "aw", "sandbox", hex.EncodeToString(sum[:8]))
}

// cacheRule is one toolchain cache: the variable that names it, and
// whether the sandbox gets a private writable one or the user's own
// read-only.
type cacheRule struct {
	name, env string
	private   bool
	user      func(home string, env func(string) string) string // the user's own (read-only rules)
}

// toolCaches are the caches a build needs. Writable ones are private: the
// user's own are never written from inside the sandbox.
var toolCaches = []cacheRule{
	{name: "go-build", env: "GOCACHE", private: true},
	{name: "go-mod", env: "GOMODCACHE", user: goModCache},
	{name: "npm", env: "npm_config_cache", private: true},
	{name: "yarn", env: "YARN_CACHE_FOLDER", private: true},
	{name: "pip", env: "PIP_CACHE_DIR", private: true},
}

// goModCache is where go keeps modules: GOMODCACHE, else the first GOPATH
// entry's pkg/mod, else ~/go/pkg/mod.
func goModCache(home string, env func(string) string) string {
	if v := env("GOMODCACHE"); v != "" {
		return v
	}
	if gp := filepath.SplitList(env("GOPATH")); len(gp) > 0 && gp[0] != "" {
		return filepath.Join(gp[0], "pkg", "mod")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, "go", "pkg", "mod")
}

// Caches lists the toolchain caches for a policy whose private state is
// state: the sandbox's own writable ones beside it (shared by every
// workspace), the user's own read-only ones where they exist.
func Caches(state, home string, env func(string) string) []Cache {
	var out []Cache
	for _, r := range toolCaches {
		if r.private {
			out = append(out, Cache{Name: r.name, Env: r.env, Path: filepath.Join(filepath.Dir(state), "cache", r.name), Writable: true})
			continue
		}
		dir := r.user(home, env)
		if dir == "" {
			continue
		}
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			out = append(out, Cache{Name: r.name, Env: r.env, Path: real})
		}
	}
	return out
}

// HiddenPathDirs picks the PATH entries the sandbox would otherwise hide
// (under the home, /tmp or /var/tmp; absolute, existing, not the home
// itself): they are made available read-only so the tools installed there
// (~/go/bin, ~/.local/bin) still run.
func HiddenPathDirs(path, home string) []string {
	var out []string
	for _, d := range filepath.SplitList(path) {
		if !filepath.IsAbs(d) {
			continue
		}
		real, err := filepath.EvalSymlinks(d)
		if err != nil || real == home || slices.Contains(out, real) {
			continue
		}
		if (home != "" && within(home, real)) || within("/tmp", real) || within("/var/tmp", real) {
			out = append(out, real)
		}
	}
	return out
}

// cacheEnv is the environment the sandbox sets: each cache's variable,
// and, for the fallback, HOME and TMPDIR.
func (p *Policy) cacheEnv() []string {
	var out []string
	for _, c := range p.Caches {
		out = append(out, c.Env+"="+c.Path)
	}
	return out
}

// within reports whether p is root or lies under it.
func within(root, p string) bool {
	if root == p {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(p, root)
}
