package commands

import (
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// OperationAnnotation is the cobra annotation naming a verb's dispatch row
// (its envelope operation, "inspect.read").
const OperationAnnotation = "aw.operation"

// verb builds the command for one dispatch row. bind registers the verb's
// flags on req's fields; args copies positional arguments into req (only
// those given, so --input can supply them instead).
func (a *app) verb(tool *dispatch.Tool, action, use string, bind func(f *pflag.FlagSet, req any), args func(req any, args []string)) *cobra.Command {
	row, err := dispatch.Find(tool.Noun, action)
	if err != nil {
		panic(err) // a programming error: the tree names a row that does not exist
	}
	req := row.NewRequest()
	var input string
	cmd := &cobra.Command{
		Use:   use,
		Short: row.Short,
		// The reference generator (scripts/gendocs) finds the row by it.
		Annotations: map[string]string{OperationAnnotation: row.Operation()},
		RunE: func(cmd *cobra.Command, positional []string) error {
			if err := a.applyInput(cmd, input, req); err != nil {
				a.emit(envelope.Fail(row.Operation(), err))
				return nil
			}
			if args != nil {
				args(req, positional)
			}
			if hook := a.hooks[cmd]; hook != nil {
				if err := hook(req); err != nil {
					a.emit(envelope.Fail(row.Operation(), err))
					return nil
				}
			}
			a.dispatch(cmd, row, req)
			return nil
		},
	}
	cmd.Flags().StringVar(&input, "input", "", "the whole request as JSON, from FILE or - for stdin; flags override its fields")
	if bind != nil {
		bind(cmd.Flags(), req)
	}
	if a.bound == nil {
		a.bound = map[*dispatch.Action]boundVerb{}
	}
	a.bound[row] = boundVerb{cmd.Flags(), req}
	return cmd
}

// beforeDispatch adds a step that may refuse the request after flags,
// --input and arguments are in (parsing a flag's JSON, say).
func (a *app) beforeDispatch(cmd *cobra.Command, hook func(req any) error) {
	if a.hooks == nil {
		a.hooks = map[*cobra.Command]func(any) error{}
	}
	a.hooks[cmd] = hook
}

// applyInput decodes --input under the flags: fields come from the JSON,
// then every flag the caller set is applied again on top.
func (a *app) applyInput(cmd *cobra.Command, input string, req any) error {
	if input == "" {
		return nil
	}
	var raw []byte
	var err error
	if input == "-" {
		raw, err = io.ReadAll(a.io.In)
	} else {
		raw, err = os.ReadFile(input)
	}
	if err != nil {
		return envelope.Errorf(envelope.InvalidInput, "cannot read --input %s: %v", input, err)
	}
	type saved struct {
		flag  *pflag.Flag
		value string
		slice []string
	}
	var set []saved
	cmd.Flags().Visit(func(f *pflag.Flag) {
		s := saved{flag: f, value: f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			s.slice = sv.GetSlice()
		}
		set = append(set, s)
	})
	if err := dispatch.DecodeInto(raw, req); err != nil {
		return err
	}
	for _, s := range set {
		if sv, ok := s.flag.Value.(pflag.SliceValue); ok {
			sv.Replace(s.slice)
		} else {
			s.flag.Value.Set(s.value)
		}
	}
	return nil
}

// dispatch opens the workspace and runs the row.
func (a *app) dispatch(cmd *cobra.Command, row *dispatch.Action, req any) {
	ws, err := a.openWorkspace()
	if err != nil {
		a.emit(envelope.Fail(row.Operation(), err))
		return
	}
	for _, w := range ws.Warnings {
		a.warn("%s", w)
	}
	if row.Operation() == "command.run" && a.live() {
		stop := a.follow(ws)
		env := row.Run(cmd.Context(), ws, req)
		stop()
		a.streamed = true
		a.emit(env)
		return
	}
	a.emit(row.Run(cmd.Context(), ws, req)) // Run puts the warnings in the envelope too
}

// openWorkspace applies the global flags. --root and AW_ROOT choose where;
// --scope and --tier only narrow.
func (a *app) openWorkspace() (*workspace.Workspace, error) {
	tier, err := workspace.ParseTier(a.tier)
	if err != nil {
		return nil, err
	}
	if a.format != "" && a.format != "json" && a.format != "table" {
		return nil, envelope.Errorf(envelope.InvalidInput, "--output %q is not json or table", a.format)
	}
	if err := a.parseFilters(); err != nil {
		return nil, err
	}
	if a.color != "auto" && a.color != "always" && a.color != "never" {
		return nil, envelope.Errorf(envelope.InvalidInput, "--color %q is not auto, always or never", a.color)
	}
	root := a.root
	if root == "" {
		root = a.io.Getenv("AW_ROOT")
	}
	caller := workspace.Caller{
		Terminal:      a.human(),
		ApproverToken: a.io.Getenv("AW_APPROVER_TOKEN"),
	}
	if caller.Terminal {
		caller.Confirm = a.confirm
		caller.ReadLine = a.readLine
	}
	return workspace.Open(workspace.Options{
		Root:       root,
		WorkingDir: a.io.Dir,
		Scope:      a.scope,
		Tier:       tier,
		ConfigHome: a.configHome(),
		Caller:     caller,
	})
}
