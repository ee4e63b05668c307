package commands

import (
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/host"
)

func (a *app) hostCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "host",
		Short: dispatch.Host.Short,
		Long: `A client of a host.workspace server (aw serve): named, versioned files an
agent treats as ground truth (identity, directives, a memory index), scoped
to the one {tenant, workspace} its token names.

The server is host.url (set by a human: aw config set host.url URL) and the
bearer token is read from the variable host.tokenEnv names (AW_HOST_TOKEN).
--url may name the server only when host.url is unset, or repeat it: the
token is never sent anywhere else. Every verb reaches the network (the exec
tier). put --if-match ETAG writes only if nobody wrote since that etag;
otherwise EDIT_CONFLICT with details.currentVersion.`,
	}
	url := func(f *pflag.FlagSet, p *string) {
		f.StringVar(p, "url", "", "the host (default: host.url; when host.url is set, only it)")
	}
	path := func(set func(req any, p string)) func(req any, args []string) {
		return func(req any, args []string) {
			if len(args) > 0 {
				set(req, args[0])
			}
		}
	}
	ls := a.verb(dispatch.Host, "ls", "ls [PREFIX]", func(f *pflag.FlagSet, req any) {
		r := req.(*host.ListRequest)
		f.StringVar(&r.Snapshot, "snapshot", "", "list as of this run snapshot")
		url(f, &r.URL)
	}, path(func(req any, p string) { req.(*host.ListRequest).Prefix = p }))
	ls.Args = cobra.MaximumNArgs(1)
	get := a.verb(dispatch.Host, "get", "get PATH", func(f *pflag.FlagSet, req any) {
		r := req.(*host.GetRequest)
		f.Int64Var(&r.Version, "version", 0, "a retained earlier version")
		f.StringVar(&r.Snapshot, "snapshot", "", "read as of this run snapshot")
		url(f, &r.URL)
	}, path(func(req any, p string) { req.(*host.GetRequest).Path = p }))
	get.Args = cobra.MaximumNArgs(1)
	put := a.verb(dispatch.Host, "put", "put PATH", func(f *pflag.FlagSet, req any) {
		r := req.(*host.PutRequest)
		f.Var(optionalString{&r.Content}, "content", "the new content (default: read from stdin)")
		f.StringVar(&r.ContentType, "content-type", "", "the content's media type (default text/markdown)")
		f.StringVar(&r.IfMatch, "if-match", "", `write only if the file is still at this etag ("v3"); * for any existing file`)
		url(f, &r.URL)
	}, func(req any, args []string) {
		r := req.(*host.PutRequest)
		if len(args) > 0 {
			r.Path = args[0]
		}
		if r.Content == nil {
			if raw, err := readAll(a.io.In); err == nil {
				text := string(raw)
				r.Content = &text
			}
		}
	})
	put.Args = cobra.MaximumNArgs(1)
	rm := a.verb(dispatch.Host, "rm", "rm PATH", func(f *pflag.FlagSet, req any) {
		r := req.(*host.RemoveRequest)
		f.StringVar(&r.IfMatch, "if-match", "", "delete only if the file is still at this etag")
		url(f, &r.URL)
	}, path(func(req any, p string) { req.(*host.RemoveRequest).Path = p }))
	rm.Args = cobra.MaximumNArgs(1)
	history := a.verb(dispatch.Host, "history", "history PATH", func(f *pflag.FlagSet, req any) {
		url(f, &req.(*host.HistoryRequest).URL)
	}, path(func(req any, p string) { req.(*host.HistoryRequest).Path = p }))
	history.Args = cobra.MaximumNArgs(1)
	watch := a.verb(dispatch.Host, "watch", "watch", func(f *pflag.FlagSet, req any) {
		r := req.(*host.WatchRequest)
		f.Var(optionalInt64{&r.After}, "after", "resume after this event id (0: every retained event; default: from now)")
		f.IntVar(&r.Count, "count", 0, "return once this many events arrived, 1-1000 (default 1)")
		f.IntVar(&r.TimeoutSeconds, "timeout", 0, "return after this many seconds with what arrived, 1-600 (default 30)")
		url(f, &r.URL)
	}, nil)
	watch.Args = cobra.NoArgs
	cmd.AddCommand(ls, get, put, rm, history, watch)
	return cmd
}

// optionalInt64 is a flag bound to a *int64 field ("not given" stays nil).
type optionalInt64 struct{ p **int64 }

func (o optionalInt64) String() string {
	if o.p == nil || *o.p == nil {
		return ""
	}
	return strconv.FormatInt(**o.p, 10)
}

func (o optionalInt64) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return err
	}
	*o.p = &n
	return nil
}

func (o optionalInt64) Type() string { return "int" }
