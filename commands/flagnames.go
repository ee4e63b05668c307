package commands

import (
	"io"
	"reflect"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/dispatch"
)

// The dispatch layer renames the flags in messages for a JSON caller; the
// command line is where flags are bound to arguments, so it says which
// flag sets which argument (worked out once, from a tree of its own, only
// when a JSON caller needs it).
func init() { dispatch.FlagNames = flagNamesOf }

// boundVerb is a verb's flag set and the request its flags write into.
type boundVerb struct {
	flags *pflag.FlagSet
	req   any
}

var flagIndex = sync.OnceValue(func() map[*dispatch.Action]map[string]string {
	a := &app{io: IO{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard,
		Getenv: func(string) string { return "" }, Terminal: func(any) bool { return false }}}
	a.newRoot(nil)
	out := map[*dispatch.Action]map[string]string{}
	for row, v := range a.bound {
		out[row] = flagArguments(v.flags, v.req)
	}
	return out
})

func flagNamesOf(row *dispatch.Action) map[string]string { return flagIndex()[row] }

// flagArguments maps each flag to the JSON name of the request field it
// writes: the flag's value points at the field (pflag's scalar values are
// the field itself, its list values hold a pointer to it).
func flagArguments(fs *pflag.FlagSet, req any) map[string]string {
	fields := map[uintptr]string{}
	v := reflect.ValueOf(req).Elem()
	for i := 0; i < v.NumField(); i++ {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			fields[v.Field(i).Addr().Pointer()] = name
		}
	}
	out := map[string]string{}
	fs.VisitAll(func(f *pflag.Flag) {
		p := reflect.ValueOf(f.Value)
		if p.Kind() != reflect.Pointer || p.IsNil() {
			return
		}
		if name, ok := fields[p.Pointer()]; ok {
			out[f.Name] = name
			return
		}
		if e := p.Elem(); e.Kind() == reflect.Struct {
			for i := 0; i < e.NumField(); i++ {
				if fp := e.Field(i); fp.Kind() == reflect.Pointer && !fp.IsNil() {
					if name, ok := fields[fp.Pointer()]; ok {
						out[f.Name] = name
						return
					}
				}
			}
		}
	})
	return out
}
