// Package api keeps v1's promise: the exported API of the module's
// packages, one line per identifier as Go's own api/go1.txt writes it, is
// in v1.txt, and the tests in this directory fail when the code drops,
// changes or adds a line there. A dropped or changed line is an
// incompatible change; an added one is new API, which the golden file must
// list before it ships, so that it is the whole promise.
//
// What counts follows golang.org/x/exp/apidiff where a line model can: a
// removed or changed identifier, signature, field or method breaks
// callers, and so does a method added to an exported interface, which
// breaks its implementations; a field added to a struct or a method to a
// type does not.
package api

import (
	"fmt"
	"go/types"
	"slices"
	"strings"
)

// Lines returns pkg's exported API, one sorted line per identifier: each
// constant with its value, variable, function and method with its
// signature, type with its kind, and each exported field and interface
// method on a line of its own.
func Lines(pkg *types.Package) []string {
	qual := types.RelativeTo(pkg)
	prefix := "pkg " + pkg.Path() + ", "
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, prefix+fmt.Sprintf(format, args...)) }
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			add("const %s %s = %s", name, types.TypeString(obj.Type(), qual), obj.Val().ExactString())
		case *types.Var:
			add("var %s %s", name, types.TypeString(obj.Type(), qual))
		case *types.Func:
			add("func %s%s", name, signature(obj.Type().(*types.Signature), qual))
		case *types.TypeName:
			lines = append(lines, typeLines(prefix, obj, qual)...)
		}
	}
	slices.Sort(lines)
	return lines
}

// typeLines returns the lines of one exported type: its kind, its exported
// fields or interface methods, and its exported methods.
func typeLines(prefix string, obj *types.TypeName, qual types.Qualifier) []string {
	name := obj.Name()
	if obj.IsAlias() {
		return []string{prefix + fmt.Sprintf("type %s = %s", name, types.TypeString(obj.Type(), qual))}
	}
	var lines []string
	switch u := obj.Type().Underlying().(type) {
	case *types.Struct:
		lines = append(lines, prefix+"type "+name+" struct")
		for i := range u.NumFields() {
			if f := u.Field(i); f.Exported() {
				lines = append(lines, prefix+fmt.Sprintf("type %s struct, %s %s", name, f.Name(), types.TypeString(f.Type(), qual)))
			}
		}
	case *types.Interface:
		lines = append(lines, prefix+"type "+name+" interface")
		for i := range u.NumMethods() {
			if m := u.Method(i); m.Exported() {
				lines = append(lines, prefix+fmt.Sprintf("type %s interface, %s%s", name, m.Name(),
					signature(m.Type().(*types.Signature), qual)))
			}
		}
	case *types.Signature:
		lines = append(lines, prefix+fmt.Sprintf("type %s func%s", name, signature(u, qual)))
	default:
		lines = append(lines, prefix+fmt.Sprintf("type %s %s", name, types.TypeString(u, qual)))
	}
	if named, ok := obj.Type().(*types.Named); ok {
		for i := range named.NumMethods() {
			m := named.Method(i)
			if !m.Exported() {
				continue
			}
			sig := m.Type().(*types.Signature)
			recv := types.TypeString(sig.Recv().Type(), qual)
			lines = append(lines, prefix+fmt.Sprintf("method (%s) %s%s", recv, m.Name(), signature(sig, qual)))
		}
	}
	return lines
}

// signature writes sig's parameters and results without their names, which
// callers never see: "(Config, int) (*Gen, error)".
func signature(sig *types.Signature, qual types.Qualifier) string {
	unnamed := func(t *types.Tuple) *types.Tuple {
		vars := make([]*types.Var, t.Len())
		for i := range vars {
			vars[i] = types.NewParam(t.At(i).Pos(), t.At(i).Pkg(), "", t.At(i).Type())
		}
		return types.NewTuple(vars...)
	}
	bare := types.NewSignatureType(nil, nil, nil, unnamed(sig.Params()), unnamed(sig.Results()), sig.Variadic())
	return strings.TrimPrefix(types.TypeString(bare, qual), "func")
}

// Diff compares the current API, have, with the promised one, golden (both
// as Lines gives them), and returns the lines that break the promise and
// the lines of new API.
func Diff(golden, have []string) (broken, added []string) {
	in := func(lines []string) map[string]bool {
		m := make(map[string]bool, len(lines))
		for _, l := range lines {
			m[l] = true
		}
		return m
	}
	g, h := in(golden), in(have)
	for _, l := range golden {
		if !h[l] {
			broken = append(broken, "removed or changed: "+l)
		}
	}
	for _, l := range have {
		if g[l] {
			continue
		}
		// A method added to an interface that v1 promised breaks every
		// type outside the module that implemented it.
		if head, _, ok := strings.Cut(l, " interface, "); ok && g[head+" interface"] {
			broken = append(broken, "method added to an interface: "+l)
			continue
		}
		added = append(added, l)
	}
	return broken, added
}
