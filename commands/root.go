// Package commands is aw's cobra tree: one file per tool noun, each verb a
// thin RunE that fills an engine request from flags and hands it to the
// dispatch table. No policy and no file I/O live here; the one place that
// maps an envelope to an exit code is exitCode.
package commands

import (
	"bytes"
	"github.com/itchyny/gojq"
	"os/exec"

	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/agentic-workspace/aw/engine/broker"
	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/output"
	"github.com/agentic-workspace/aw/output/visible"
)

// Version is set at build time (-ldflags "-X .../commands.Version=v1.2.3").
var Version = "dev"

// Exit codes: 0 ok, 1 ok:false, 2 usage, 3 staged for approval.
const (
	ExitOK      = 0
	ExitFailed  = 1
	ExitUsage   = 2
	ExitPending = 3
)

// IO is the process's streams and environment; tests pass their own.
type IO struct {
	In     io.Reader
	Out    io.Writer
	Err    io.Writer
	Getenv func(string) string
	Dir    string // working directory
	// Terminal reports whether the stream is a terminal (stdin, stdout, stderr).
	Terminal func(f any) bool
	// TTY opens the controlling terminal (/dev/tty), where a human verb
	// asks its question and reads the answer; nil when there is none.
	TTY func() (io.ReadWriteCloser, error)
}

// OSIO returns the real process streams.
func OSIO() IO {
	wd, _ := os.Getwd()
	return IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Getenv: os.Getenv, Dir: wd,
		Terminal: func(f any) bool {
			file, ok := f.(*os.File)
			return ok && term.IsTerminal(int(file.Fd()))
		},
		TTY: func() (io.ReadWriteCloser, error) { return os.OpenFile("/dev/tty", os.O_RDWR, 0) },
	}
}

// human says a human is at the controlling terminal: stdin is a terminal
// and /dev/tty opens. stdout may be piped (aw approval accept > log).
func (a *app) human() bool {
	if a.io.TTY == nil || !a.io.Terminal(a.io.In) {
		return false
	}
	tty, err := a.io.TTY()
	if err != nil {
		return false
	}
	tty.Close()
	return true
}

// app is one invocation: global flags, streams, and the envelope it produced.
type app struct {
	io      IO
	root    string
	scope   string
	tier    string
	format  string
	pretty  bool
	jq      string
	query   *gojq.Code
	fields  string
	noPager bool
	color   string
	// streamed: the command's output was shown live (command run on a
	// terminal), so the envelope's view leaves its tails out.
	streamed bool
	// filterFailed: --jq failed on the result (exit 1 when the call was ok)
	filterFailed bool
	hooks        map[*cobra.Command]func(req any) error
	bound        map[*dispatch.Action]boundVerb // each verb's flags, for flagNamesOf
	result       *envelope.Envelope
	exitCode     int
}

// Main runs aw with args and returns the process exit code.
func Main(args []string) int { return Run(context.Background(), OSIO(), args) }

// Run is Main with explicit streams. A panic anywhere below becomes an
// INTERNAL envelope, never a stack trace on the caller's screen.
func Run(ctx context.Context, stdio IO, args []string) (code int) {
	a := &app{io: stdio}
	broker.Services = brokerServices
	defer func() {
		if r := recover(); r != nil {
			a.emit(envelope.Fail("aw", fmt.Errorf("aw hit a bug (%v)", r)))
			code = ExitFailed
		}
	}()
	root := a.newRoot(args)
	root.SetArgs(args)
	root.SetIn(stdio.In)
	root.SetOut(stdio.Out)
	root.SetErr(stdio.Err)
	cmd, err := root.ExecuteContextC(ctx)
	if err != nil {
		// cobra's own errors: unknown command or flag, wrong argument count.
		op := operationOf(cmd)
		env := envelope.Fail(op, usageError(err, cmd))
		a.emit(env)
		return ExitUsage
	}
	if a.result == nil {
		return a.exitCode
	}
	if a.filterFailed && exitCode(*a.result) == ExitOK {
		return ExitFailed // the call ran, but what was asked to be printed could not be
	}
	return exitCode(*a.result)
}

// exitCode is the one mapping from an envelope to an exit code.
func exitCode(env envelope.Envelope) int {
	switch {
	case env.OK && env.Pending():
		return ExitPending
	case env.OK:
		return ExitOK
	case env.Error != nil && env.Error.Code == envelope.InvalidInput:
		return ExitUsage
	default:
		return ExitFailed
	}
}

func (a *app) newRoot(args []string) *cobra.Command {
	root := &cobra.Command{
		Use:   "aw",
		Short: "The agentic workspace: a bounded, recoverable place for an AI agent to work",
		Long: `aw gives an AI agent a bounded, recoverable workspace and gives the human
who supervises it the final say. Every call prints one agentic-workspace/v1
JSON envelope (a table on a terminal) and exits 0 (ok), 1 (failed: see
error.code), 2 (usage) or 3 (staged for approval).`,
		Version:           Version,
		SilenceErrors:     true,
		SilenceUsage:      true,
		DisableAutoGenTag: true,
	}
	root.SetVersionTemplate("aw {{.Version}}\n")
	f := root.PersistentFlags()
	f.StringVar(&a.root, "root", "", "workspace root (default: $AW_ROOT, else the nearest ancestor holding .agentic/ or .git, else the working directory)")
	f.StringVar(&a.scope, "scope", "", "narrow the jail to this sub-directory of the root")
	f.StringVar(&a.tier, "tier", "exec", "cap what the call may do: read, write or exec")
	f.StringVarP(&a.format, "output", "o", "", "json or table (default: table on a terminal, json otherwise)")
	f.BoolVar(&a.pretty, "pretty", false, "indent JSON output")
	f.StringVar(&a.jq, "jq", "", "print the result of a jq expression over the envelope (strings raw, one result per line)")
	f.StringVar(&a.color, "color", "auto", "color table output (diffs, search matches, statuses, errors): auto (on a terminal, unless NO_COLOR is set), always or never")
	f.BoolVar(&a.noPager, "no-pager", false, "never page long table output (default: $PAGER, else less -FRX, when it is longer than the terminal)")
	f.StringVar(&a.fields, "fields", "", "print only these comma-separated fields of data, as one JSON object")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &usage{err} })
	root.AddGroup(&cobra.Group{ID: "tools", Title: "Agent tools:"}, &cobra.Group{ID: "human", Title: "Human and setup:"})
	root.SetHelpCommandGroupID("human")
	root.SetCompletionCommandGroupID("human")
	// Only the invoked noun's subtree is built: the whole tree costs more
	// than the rest of a small call, and start-up is on every call.
	// Help, completion, typos and the docs generator see every noun.
	nouns := a.nouns()
	word := firstWord(root, args)
	invoked := slices.ContainsFunc(nouns, func(n noun) bool { return n.name == word })
	// cobra would also build `aw completion` and its four shells on every
	// call; a call that names a noun cannot reach it.
	root.CompletionOptions.DisableDefaultCmd = invoked
	for _, n := range nouns {
		if invoked && n.name != word {
			continue
		}
		c := n.build()
		c.GroupID = n.group
		if c.HasSubCommands() && c.Run == nil && c.RunE == nil {
			c.Args = cobra.ArbitraryArgs
			c.RunE = a.needsAction
		}
		root.AddCommand(c)
	}
	a.completeIDs(root)
	addExamples(root)
	ownBashCompletion(root)
	return root
}

// noun is one top-level command, built only when needed.
type noun struct {
	name, group string
	build       func() *cobra.Command
}

func (a *app) nouns() []noun {
	return []noun{
		{"inspect", "tools", a.inspectCmd},
		{"edit", "tools", a.editCmd},
		{"ast", "tools", a.astCmd},
		{"plan", "tools", a.planCmd},
		{"notes", "tools", a.notesCmd},
		{"command", "tools", a.commandCmd},
		{"policy", "tools", a.policyCmd},
		{"tasks", "tools", a.tasksCmd},
		{"research", "tools", a.researchCmd},
		{"vcs", "tools", a.vcsCmd},
		{"browser", "tools", a.browserCmd},
		{"agent", "tools", a.agentCmd},
		{"ask", "tools", a.askCmd},
		{"lsp", "tools", a.lspCmd},
		{"host", "tools", a.hostCmd},
		{"debug", "tools", a.debugCmd},
		{"eval", "tools", a.evalCmd},
		{"broker", "human", a.brokerCmd},
		{"serve", "human", a.serveCmd},
		{"approval", "human", a.approvalCmd},
		{"prompt", "human", a.promptCmd},
		{"call", "human", a.callCmd},
		{"mcp", "human", a.mcpCmd},
		{"schema", "human", a.schemaCmd},
		{"envelope", "human", a.envelopeCmd},
		{"config", "human", a.configCmd},
		{"init", "human", a.initCmd},
		{"gc", "human", a.gcCmd},
		{"answer", "human", a.answerCmd},
		{"version", "human", a.versionCmd},
		{"environment", "", a.environmentTopic},
		{"exit-codes", "", a.exitCodesTopic},
		{"files", "", a.filesTopic},
	}
}

// firstWord returns the first argument that is not a global flag or its
// value, "" when there is none or a flag is not global.
func firstWord(root *cobra.Command, args []string) string {
	flags := root.PersistentFlags()
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			return ""
		case strings.HasPrefix(arg, "-") && len(arg) > 1:
			if strings.Contains(arg, "=") {
				continue
			}
			var f *pflag.Flag
			if name, ok := strings.CutPrefix(arg, "--"); ok {
				f = flags.Lookup(name)
			} else if len(arg) == 2 {
				f = flags.ShorthandLookup(arg[1:])
			}
			if f == nil {
				return "" // a flag of no noun: let cobra report it
			}
			if f.NoOptDefVal == "" {
				i++ // the flag's value is the next argument
			}
		default:
			return arg
		}
	}
	return ""
}

type usage struct{ error }

func usageError(err error, cmd *cobra.Command) error {
	var e *envelope.Error
	if errors.As(err, &e) {
		return e
	}
	hint := "run `aw --help`"
	if cmd != nil {
		hint = "run `" + cmd.CommandPath() + " --help`"
	}
	return envelope.Errorf(envelope.InvalidInput, "%s; %s for usage", err.Error(), hint)
}

// needsAction is the RunE of a noun called without one of its actions (or
// with an unknown one): an INVALID_INPUT envelope that lists the actions,
// so a script learns it called nothing. A human at a terminal who typed the
// bare noun gets its help instead, as gh does.
func (a *app) needsAction(cmd *cobra.Command, args []string) error {
	if len(args) == 0 && a.io.Terminal(a.io.Out) {
		return cmd.Help()
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	what := cmd.Name() + " needs an action"
	if len(args) > 0 {
		what = cmd.Name() + ` has no action "` + args[0] + `"`
	}
	a.emit(envelope.Fail(cmd.Name(), envelope.Errorf(envelope.InvalidInput,
		"%s: the actions are %s (see `aw %s --help`)", what, strings.Join(names, ", "), cmd.Name())))
	return nil
}

// operationOf names the operation for a usage error ("inspect.read").
func operationOf(cmd *cobra.Command) string {
	if cmd == nil || !cmd.HasParent() {
		return "aw"
	}
	parts := strings.Fields(strings.TrimPrefix(cmd.CommandPath(), "aw "))
	if len(parts) >= 2 {
		return parts[0] + "." + strings.ReplaceAll(parts[1], "-", "_")
	}
	return parts[0]
}

// colored decides --color: auto colors a terminal unless NO_COLOR is set
// (to anything but ""), always and never say what they mean.
func (a *app) colored() bool {
	switch a.color {
	case "always":
		return true
	case "never":
		return false
	}
	return a.io.Getenv("NO_COLOR") == "" && a.io.Terminal(a.io.Out)
}

// width is the terminal's width when stdout is one, else 0 (the fixed
// width of table output off a terminal).
func (a *app) width() int {
	if f, ok := a.io.Out.(*os.File); ok && a.io.Terminal(a.io.Out) {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil {
			return w
		}
	}
	return 0
}

// tableMode reports whether to render for a human.
func (a *app) tableMode() bool {
	switch a.format {
	case "table":
		return true
	case "json":
		return false
	}
	return a.io.Terminal(a.io.Out)
}

// emit renders one envelope to stdout and remembers it for the exit code.
func (a *app) emit(env envelope.Envelope) {
	a.result = &env
	if a.filtering() {
		if err := a.parseFilters(); err != nil {
			// A malformed --jq is reported as an envelope, unfiltered.
			a.jq, a.fields = "", ""
			a.emit(envelope.Fail(env.Operation, err))
			return
		}
		if err := a.writeFiltered(a.io.Out, env); err != nil {
			fmt.Fprintln(a.io.Err, "aw:", err)
			a.filterFailed = true
		}
		return
	}
	f := output.Format{Table: a.tableMode(), Pretty: a.pretty, Width: a.width(), Color: a.colored(), Streamed: a.streamed}
	if a.format != "" && a.format != "json" && a.format != "table" {
		f = output.Format{}
	}
	var buf bytes.Buffer
	if err := output.Render(&buf, env, f); err != nil {
		fmt.Fprintln(a.io.Err, "aw: cannot write output:", err)
		return
	}
	if f.Table && a.page(buf.Bytes()) {
		return
	}
	a.io.Out.Write(buf.Bytes())
}

// page shows a table longer than the terminal through the human's pager
// ($PAGER, else less -FRX), as git and gh do; never off a terminal, never
// with --no-pager or PAGER=cat. It reports whether the pager took it.
func (a *app) page(text []byte) bool {
	f, ok := a.io.Out.(*os.File)
	if a.noPager || !ok || !a.io.Terminal(a.io.Out) {
		return false
	}
	_, rows, err := term.GetSize(int(f.Fd()))
	if err != nil || bytes.Count(text, []byte("\n")) < rows {
		return false
	}
	pager := a.io.Getenv("PAGER")
	if pager == "" {
		pager = "less -FRX"
	}
	argv := strings.Fields(pager)
	if len(argv) == 0 || argv[0] == "cat" {
		return false
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(text), f, a.io.Err
	return cmd.Run() == nil
}

// warn writes a line to stderr, only when stderr is a terminal: json output
// stays the envelope alone.
func (a *app) warn(format string, args ...any) {
	if a.io.Terminal(a.io.Err) {
		fmt.Fprintf(a.io.Err, "aw: %s\n", visible.Line(fmt.Sprintf(format, args...)))
	}
}

// configHome is $XDG_CONFIG_HOME, else ~/.config.
func (a *app) configHome() string {
	if d := a.io.Getenv("XDG_CONFIG_HOME"); d != "" {
		return d
	}
	if h := a.io.Getenv("HOME"); h != "" {
		return filepath.Join(h, ".config")
	}
	return ""
}
