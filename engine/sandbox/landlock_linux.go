package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/agentic-workspace/aw/engine/proc"
)

// HelperArg is the hidden first argument that turns aw into the Landlock
// fallback's parent: `aw __sandbox-landlock SPEC ARGV...`. It restricts
// itself, runs the command, and on the command's end (or a signal) kills
// every descendant left, including those that called setsid: it is their
// subreaper.
const HelperArg = "__sandbox-landlock"

// llSpec is what the helper applies: computed by the parent (which walks
// the workspace), applied by the helper without judging it.
type llSpec struct {
	Rules   []llRule `json:"rules"`
	Network bool     `json:"network"`
	Env     []string `json:"env"` // set over the inherited environment
	Cwd     string   `json:"cwd"`
	// Detached: the helper and the command outlive the aw call that
	// started them (Policy.Detached); a signal to the group ends them.
	Detached bool `json:"detached,omitempty"`
}

type llRule struct {
	Path string `json:"path"`
	Kind string `json:"kind"` // ro, rw (directories), rof, rwf (files), list (a directory's entries only)
}

// landlockABI reports the kernel's Landlock ABI version (0: none).
func landlockABI() (int, string) {
	v, err := llsyscall.LandlockGetABIVersion()
	if err != nil || v < 1 {
		why := "the kernel does not offer Landlock"
		if err != nil {
			why += " (" + err.Error() + ")"
		}
		return 0, why
	}
	return v, ""
}

// landlockArgv builds the helper's command line.
func landlockArgv(abi int, p *Policy, argv []string) ([]string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("sandbox: cannot find aw's own executable for the Landlock helper: %v", err)
	}
	spec := llSpec{Rules: landlockRules(p), Network: p.Network, Cwd: p.Cwd, Detached: p.Detached}
	spec.Env = append(p.cacheEnv(), "HOME="+p.privateHome(), "TMPDIR="+p.privateTmp())
	raw, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	return append([]string{self, HelperArg, string(raw)}, argv...), nil
}

// landlockRules turns the policy into Landlock's allow-list. Landlock
// rules are inherited by everything beneath a directory and only ever
// add access, so a narrower carve-out (a read-only .git inside the
// read-write root, a denied file inside a readable tree) is made by not
// granting the directory that holds it, and granting each of its other
// entries instead ("expansion"). A directory expanded this way keeps only
// the right to list it.
func landlockRules(p *Policy) []llRule {
	b := &llBuilder{}
	none := map[string]string{}
	for _, h := range p.Hidden {
		none[h] = ""
	}
	if p.replacesHome() {
		none[p.Home] = ""
	}
	if p.Workspace != ReadWrite {
		// Read-only: granted with the rest, unless under the hidden home
		// (then again below); invisible: not granted at all.
		none[p.Root] = ""
	}
	// Everything readable, but the home and the hidden paths.
	b.expand("/", "ro", none)
	inRoot := map[string]string{}
	for _, h := range p.Hidden {
		inRoot[h] = ""
	}
	switch p.Workspace {
	case ReadWrite:
		// The workspace writable, but the carve-outs.
		for _, r := range p.ReadOnly {
			inRoot[r] = "ro"
		}
		b.expand(p.Root, "rw", inRoot)
	case ReadOnly:
		b.expand(p.Root, "ro", inRoot)
	}
	for _, w := range p.Writable {
		b.add(w, "rw")
	}
	for _, d := range p.PathDirs {
		b.add(d, "ro")
	}
	for _, c := range p.Caches {
		if c.Writable {
			b.add(c.Path, "rw")
		} else {
			b.add(c.Path, "ro")
		}
	}
	b.add(p.privateHome(), "rw")
	b.add(p.privateTmp(), "rw")
	for _, dev := range []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"} {
		if _, err := os.Stat(dev); err == nil {
			b.rules = append(b.rules, llRule{Path: dev, Kind: "rwf"})
		}
	}
	return b.rules
}

type llBuilder struct{ rules []llRule }

// add grants kind on path, as a file rule when path is not a directory.
func (b *llBuilder) add(path, kind string) {
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	if !fi.IsDir() {
		switch kind {
		case "ro":
			kind = "rof"
		case "rw":
			kind = "rwf"
		case "list":
			return
		}
	}
	b.rules = append(b.rules, llRule{Path: path, Kind: kind})
}

// expand grants kind on path except the paths in except, which get their
// own kind ("" = nothing).
func (b *llBuilder) expand(path, kind string, except map[string]string) {
	if k, ok := except[path]; ok {
		if k != "" {
			b.add(path, k)
		}
		return
	}
	below, hidden := false, false
	for e, k := range except {
		if e != path && within(path, e) {
			below = true
			hidden = hidden || k == ""
		}
	}
	if !below {
		b.add(path, kind)
		return
	}
	// Grant the directory itself only what its carve-outs may have too.
	if hidden {
		b.add(path, "list")
	} else {
		b.add(path, "ro")
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.Type()&os.ModeSymlink != 0 {
			continue // a rule follows the link: never grant its target through it
		}
		b.expand(filepath.Join(path, e.Name()), kind, except)
	}
}

// landlockGaps is what the fallback cannot enforce, said plainly.
func landlockGaps(abi int, p *Policy) []string {
	g := []string{
		"the home is not replaced but made unreadable; HOME points at a private, empty one",
		"/tmp stays readable (not writable); TMPDIR points at a private directory",
		"directories that hold a protected or denied path (the workspace root among them) keep their existing entries writable but no new entry can be created, renamed or removed directly in them",
		"names (not contents) inside unreadable directories can still be listed",
		"no PID namespace: if aw's supervisor is killed with SIGKILL, processes that called setsid may outlive it",
	}
	switch {
	case p.Network:
	case abi < 4:
		g = append(g, fmt.Sprintf("no network restriction: Landlock ABI %d (before 4, Linux 6.7) cannot restrict sockets", abi))
	default:
		g = append(g, "only TCP connect and bind are refused; UDP, raw and other sockets are not restricted by this kernel's Landlock")
	}
	if abi < 6 {
		g = append(g, "signals and abstract unix sockets are not scoped (Landlock ABI before 6)")
	}
	return g
}

// Helper is the Landlock fallback's parent (aw re-executed with
// HelperArg). It returns the exit code.
func Helper(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "aw: the sandbox helper takes a specification and a command")
		return 126
	}
	// Only aw's own supervisor may start the helper: called directly, it
	// would run any program with any rules, outside the command policy.
	// (Started by a sandboxed command, it can only add Landlock rules to
	// the sandbox it is already in.)
	self, err1 := os.Readlink("/proc/self/exe")
	parent, err2 := os.Readlink("/proc/" + strconv.Itoa(os.Getppid()) + "/exe")
	if err1 != nil || err2 != nil || self != parent {
		fmt.Fprintln(os.Stderr, "aw: "+HelperArg+" is aw's own sandbox helper and runs only under aw's command supervisor; use `aw command run`")
		return 126
	}
	var spec llSpec
	if err := json.Unmarshal([]byte(args[0]), &spec); err != nil {
		fmt.Fprintf(os.Stderr, "aw: the sandbox helper's specification does not parse: %v\n", err)
		return 126
	}
	// Die with the supervisor (unless detached); be the reaper of every
	// orphan below.
	if !spec.Detached {
		unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0, 0, 0)
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "aw: the sandbox helper cannot become a subreaper: %v\n", err)
		return 126
	}
	if err := restrict(spec); err != nil {
		fmt.Fprintf(os.Stderr, "aw: Landlock refused the sandbox: %v\n", err)
		return 126
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Env = mergeEnv(os.Environ(), spec.Env)
	cmd.Dir = spec.Cwd
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // dies with this helper
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "aw: cannot start %s: %v\n", args[1], err)
		return 127
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	code := 0
	select {
	case err := <-done:
		code = exitCode(cmd.ProcessState, err)
	case s := <-sigs:
		code = 128 + int(s.(syscall.Signal))
	}
	killDescendants()
	return code
}

func restrict(spec llSpec) error {
	var rules []landlock.Rule
	for _, r := range spec.Rules {
		switch r.Kind {
		case "ro":
			rules = append(rules, landlock.RODirs(r.Path).IgnoreIfMissing())
		case "rw":
			rules = append(rules, landlock.RWDirs(r.Path).IgnoreIfMissing())
		case "rof":
			rules = append(rules, landlock.ROFiles(r.Path).IgnoreIfMissing())
		case "rwf":
			rules = append(rules, landlock.RWFiles(r.Path).IgnoreIfMissing())
		case "list":
			rules = append(rules, landlock.PathAccess(landlock.AccessFSSet(llsyscall.AccessFSReadDir), r.Path).IgnoreIfMissing())
		}
	}
	cfg := landlock.V11.BestEffort()
	if err := cfg.RestrictPaths(rules...); err != nil {
		return err
	}
	if err := cfg.RestrictScoped(); err != nil {
		return err
	}
	if !spec.Network {
		return cfg.RestrictNet()
	}
	return nil
}

func exitCode(ps *os.ProcessState, err error) int {
	if ps == nil {
		return 127
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// killDescendants kills every process below this one and reaps it: as
// subreaper, orphans that called setsid are re-parented here, so the scan
// sees them.
func killDescendants() {
	self := os.Getpid()
	for round := 0; round < 50; round++ {
		kids := descendants(self)
		if len(kids) == 0 {
			return
		}
		for _, pid := range kids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// descendants lists the living processes below pid, from /proc.
func descendants(pid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := proc.Read(n); ok && st.Living() {
			children[st.Parent] = append(children[st.Parent], n)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	sort.Ints(out)
	return out
}

// mergeEnv sets each KEY=VALUE of over on env.
func mergeEnv(env, over []string) []string {
	keys := map[string]bool{}
	for _, kv := range over {
		k, _ := splitEnv(kv)
		keys[k] = true
	}
	var out []string
	for _, kv := range env {
		if k, _ := splitEnv(kv); !keys[k] && !strings.HasPrefix(kv, "=") {
			out = append(out, kv)
		}
	}
	return append(out, over...)
}
