//! model → tokens for typed clients: the client of a service (`#[mcp::service(client)]`,
//! kept only in builds with the runtime's `client` feature) and of an `#[mcp::client]`
//! trait. One method per tool, resource, prompt and completer, with the method's own
//! parameter types; the output type is read from the return type as written, and checks
//! hold that reading to the compiler's (MCP_501, MCP_502).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{GenericArgument, Ident, Path, PathArguments, Type};

use super::{probe_kind, split, wire_name};
use crate::model::{
    ClientTraitDef, CompleterDef, ParamDef, PromptDef, ResourceDef, ServiceDef, ToolDef,
};

/// The runtime parameter types, by the last segment of their path (under an `Option` too):
/// the typed client leaves them out. MCP_501 checks each reading against the type's kind.
const RUNTIME_TYPES: [&str; 6] = [
    "Session",
    "RequestMeta",
    "HeaderMap",
    "Parts",
    "Context",
    "AuthContext",
];

/// The last path segment of `ty`, under one `Option<...>`.
fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident == "Option"
        && let PathArguments::AngleBracketed(a) = &last.arguments
        && let Some(GenericArgument::Type(inner)) = a.args.first()
        && let Type::Path(ip) = inner
    {
        return ip.path.segments.last();
    }
    Some(last)
}

/// Whether the macro reads `p` as a runtime parameter (or an `#[http_header]` one).
fn left_out(p: &ParamDef) -> bool {
    p.http_header.is_some()
        || last_segment(&p.ty).is_some_and(|s| RUNTIME_TYPES.iter().any(|r| s.ident == r))
}

/// The first type argument of a path type's last segment.
fn first_arg(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let PathArguments::AngleBracketed(a) = &p.path.segments.last()?.arguments else {
        return None;
    };
    a.args.iter().find_map(|g| match g {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

fn last_ident_is(ty: &Type, name: &str) -> bool {
    matches!(ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == name))
}

/// How the client reads a return type as written.
enum Output {
    /// `Result<T, E>`: `T`.
    Result(Box<Type>),
    /// Anything else.
    Plain,
}

/// The type a typed call yields for return type `output`, and how it was read.
fn output_type(k: &Path, output: Option<&Type>) -> (Type, Output) {
    let Some(ty) = output else {
        return (syn::parse_quote!(()), Output::Plain);
    };
    let (ok, how) = match first_arg(ty) {
        Some(ok) if last_ident_is(ty, "Result") => {
            (ok.clone(), Output::Result(Box::new(ok.clone())))
        }
        _ => (ty.clone(), Output::Plain),
    };
    (success_type(k, &ok), how)
}

/// The value a success type is read as: `ToolOutput<T>` → `T`, a raw response →
/// `CallToolResult` (the client completes the rounds), `&str` → `String`.
fn success_type(k: &Path, ty: &Type) -> Type {
    if let Type::Reference(r) = ty
        && matches!(&*r.elem, Type::Path(p) if p.path.is_ident("str"))
    {
        return syn::parse_quote!(::std::string::String);
    }
    if last_ident_is(ty, "ToolOutput")
        && let Some(inner) = first_arg(ty)
    {
        return success_type(k, inner);
    }
    if last_ident_is(ty, "CallToolResponse") || last_ident_is(ty, "InputRequiredResult") {
        return syn::parse_quote!(#k::CallToolResult);
    }
    ty.clone()
}

/// A parameter of a generated method: `impl Into<String>` for a `String` (so that a
/// literal passes), the declared type for anything else (so that integer literals infer).
fn param(ident: &Ident, ty: &Type) -> TokenStream {
    if matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "String" && s.arguments.is_empty()))
    {
        // Spanned on the type, so that a wrong argument's "required by this bound" points
        // at the parameter rather than at the attribute.
        quote_spanned!(ty.span()=> #ident: impl ::core::convert::Into<#ty>)
    } else {
        quote!(#ident: #ty)
    }
}

/// The parameters a generated method takes: declared as [`param`] does, converted into
/// their declared types first thing in the body, and sent under their wire names.
struct Params<'a> {
    idents: Vec<&'a Ident>,
    types: Vec<&'a Type>,
    wires: Vec<String>,
}

impl<'a> Params<'a> {
    fn of(params: impl IntoIterator<Item = &'a ParamDef>) -> Self {
        let params: Vec<&ParamDef> = params.into_iter().collect();
        Self {
            idents: params.iter().map(|p| &p.ident).collect(),
            types: params.iter().map(|p| &p.ty).collect(),
            wires: params.iter().map(|p| wire_name(&p.ident)).collect(),
        }
    }

    /// `, a: A, b: impl Into<String>` after `&self`.
    fn decls(&self) -> TokenStream {
        let each = self
            .idents
            .iter()
            .zip(&self.types)
            .map(|(i, t)| param(i, t));
        quote!(#(, #each)*)
    }

    /// `let a: A = Into::into(a);` for each.
    fn converted(&self) -> TokenStream {
        let (idents, types) = (&self.idents, &self.types);
        quote!(#( let #idents: #types = ::core::convert::Into::into(#idents); )*)
    }
}

fn doc_lines(description: Option<&str>, fallback: String) -> TokenStream {
    let mut lines: Vec<String> = description
        .map(|d| d.lines().map(|l| format!(" {l}")).collect())
        .unwrap_or_default();
    if !lines.is_empty() {
        lines.push(String::new());
    }
    lines.push(format!(" {fallback}"));
    quote!(#(#[doc = #lines])*)
}

/// The method calling `tool`; `sent` are the parameters the client sends.
fn tool_method(k: &Path, tool: &ToolDef, sent: &[&ParamDef]) -> TokenStream {
    let ident = &tool.ident;
    let name = &tool.name;
    let cfg = &tool.cfg_attrs;
    let (out, _) = output_type(k, tool.output.as_ref());
    let doc = doc_lines(
        tool.description.as_deref(),
        format!(
            "Calls the tool `{name}`; set the call's options on the returned `TypedCall`, then await it."
        ),
    );
    let params = Params::of(sent.iter().copied());
    let (decls, converted) = (params.decls(), params.converted());
    let (idents, wires) = (&params.idents, &params.wires);
    let out_span = if tool.output.is_some() {
        out.span()
    } else {
        Span::call_site()
    };
    let decoder = quote_spanned! {out_span=>
        #k::__private::client::decoder::<#out, _>(
            (&&#k::__private::Probe::<#out>::NEW).decoder_tag(),
        )
    };
    quote! {
        #(#cfg)*
        #doc
        #[allow(clippy::too_many_arguments)]
        pub fn #ident(&self #decls) -> #k::client::TypedCall<#out> {
            #[allow(unused_imports)]
            use #k::__private::client::{
                GenericDecoder as _, PutOther as _, PutSerialize as _, SpecificDecoder as _,
            };
            #converted
            #k::client::TypedCall::new(
                &self.client,
                #name,
                {
                    // By probe: a type that is not `Serialize` is reported once, as MCP_501.
                    let __mcp_args = #k::client::typed::Arguments::new();
                    #( let __mcp_args = (&&#k::__private::client::Sent(&#idents))
                        .put(__mcp_args, #wires); )*
                    __mcp_args
                },
                #decoder,
            )
        }
    }
}

/// The checks of one tool's client method (MCP_501, MCP_502), in a function of their own.
fn tool_checks(k: &Path, i: usize, tool: &ToolDef, classify: bool) -> TokenStream {
    let cfg = &tool.cfg_attrs;
    let name = format_ident!("__mcp_client_checks_{}", i);
    let params = tool
        .params
        .iter()
        .filter(|p| p.http_header.is_none())
        .map(|p| {
            let probe = probe_kind(k, &p.ty);
            let span = p.ty.span();
            if classify && left_out(p) {
                quote_spanned!(span=> #k::__private::client::left_out(#probe);)
            } else {
                quote_spanned!(span=> #k::__private::client::sent(#probe);)
            }
        });
    let split_probe = split(k, tool.output.as_ref());
    let span = tool
        .output
        .as_ref()
        .map_or_else(Span::call_site, Spanned::span);
    let output = match output_type(k, tool.output.as_ref()).1 {
        Output::Plain => quote_spanned!(span=> #k::__private::client::plain(&__mcp_split);),
        Output::Result(ok) => {
            quote_spanned!(span=> #k::__private::client::result_of::<#ok, _>(&__mcp_split);)
        }
    };
    quote! {
        #(#cfg)*
        #[allow(dead_code, non_snake_case)]
        fn #name() {
            #[allow(unused_imports)]
            use #k::__private::prelude::*;
            #(#params)*
            let __mcp_split = #split_probe;
            #output
        }
    }
}

/// The method reading a resource (a template's variables as its parameters).
fn resource_method(k: &Path, r: &ResourceDef) -> TokenStream {
    let m = &r.method;
    let ident = &m.ident;
    let cfg = &m.cfg_attrs;
    let uri = r.uri.value();
    let result = quote!(::core::result::Result<#k::ReadResourceResult, #k::client::ClientError>);
    if !r.template {
        let doc = doc_lines(
            r.description.as_deref(),
            format!("Reads the resource `{uri}`."),
        );
        return quote! {
            #(#cfg)*
            #doc
            pub async fn #ident(&self) -> #result {
                self.client.read_resource(#uri).await
            }
        };
    }
    let vars = Params::of(
        m.params
            .iter()
            .filter(|p| r.vars.contains(&wire_name(&p.ident))),
    );
    let (decls, converted) = (vars.decls(), vars.converted());
    let (idents, wires) = (&vars.idents, &vars.wires);
    let doc = doc_lines(
        r.description.as_deref(),
        format!("Reads the resource the template `{uri}` names for these variables."),
    );
    quote! {
        #(#cfg)*
        #doc
        #[allow(clippy::too_many_arguments)]
        pub async fn #ident(&self #decls) -> #result {
            #converted
            let __mcp_uri = #k::client::typed::expand(
                #uri,
                &[#( (#wires, #k::client::typed::variable(&#idents)) ),*],
            );
            self.client.read_resource(&__mcp_uri).await
        }
    }
}

/// The method getting a prompt (its arguments as parameters).
fn prompt_method(k: &Path, p: &PromptDef) -> TokenStream {
    let m = &p.method;
    let ident = &m.ident;
    let cfg = &m.cfg_attrs;
    let name = &p.name;
    let args = Params::of(m.params.iter().filter(|p| !left_out(p)));
    let (decls, converted) = (args.decls(), args.converted());
    let (idents, wires) = (&args.idents, &args.wires);
    let doc = doc_lines(
        p.description.as_deref(),
        format!("Gets the prompt `{name}`."),
    );
    quote! {
        #(#cfg)*
        #doc
        #[allow(clippy::too_many_arguments)]
        pub async fn #ident(&self #decls)
            -> ::core::result::Result<#k::GetPromptResult, #k::client::ClientError>
        {
            #converted
            #[allow(unused_mut)]
            let mut __mcp_args = ::std::collections::BTreeMap::new();
            #( #k::client::typed::PromptArgument::put(#idents, #wires, &mut __mcp_args); )*
            self.client.get_prompt(#name, __mcp_args).await
        }
    }
}

/// The method completing a prompt argument or template variable.
fn completer_method(k: &Path, c: &CompleterDef) -> TokenStream {
    let m = &c.method;
    let ident = &m.ident;
    let cfg = &m.cfg_attrs;
    let target = c.target.value();
    let argument = c.argument.value();
    let (reference, what) = if c.template {
        (
            quote!(#k::Reference::resource(#target)),
            format!("variable `{argument}` of the resource template `{target}`"),
        )
    } else {
        (
            quote!(#k::Reference::prompt(#target)),
            format!("argument `{argument}` of the prompt `{target}`"),
        )
    };
    let doc = format!(
        " Completes {what} from its partial `value`, given the values of the others in `context`."
    );
    quote! {
        #(#cfg)*
        #[doc = #doc]
        pub async fn #ident(
            &self,
            value: &str,
            context: ::std::collections::BTreeMap<::std::string::String, ::std::string::String>,
        ) -> ::core::result::Result<#k::Completion, #k::client::ClientError> {
            self.client.complete(#reference, #argument, value, context).await
        }
    }
}

/// The client struct and the trait impl every typed client has.
fn struct_and_impl(
    k: &Path,
    vis: &TokenStream,
    client: &Ident,
    attrs: TokenStream,
    methods: TokenStream,
) -> TokenStream {
    quote! {
        #attrs
        #[derive(Clone, Debug)]
        #[allow(dead_code)]
        #vis struct #client {
            client: #k::client::Client,
        }

        #[allow(dead_code)]
        impl #client {
            #methods
        }
    }
}

fn typed_client_impl(k: &Path, client: &Ident) -> TokenStream {
    quote! {
        impl #k::client::typed::TypedClient for #client {
            fn from_client(client: #k::client::Client) -> Self {
                Self { client }
            }
            fn client(&self) -> &#k::client::Client {
                &self.client
            }
            fn expected_tools() -> &'static [#k::Tool] {
                __mcp_tools()
            }
        }
    }
}

/// The typed client of a basic service: the struct and its methods (at module level) and,
/// for the service's `const _` block, the trait impls and checks. Both are kept only in
/// builds with the `client` feature.
pub fn service_client(svc: &ServiceDef) -> (TokenStream, TokenStream) {
    let Some(client) = &svc.client else {
        return (TokenStream::new(), TokenStream::new());
    };
    let k = &svc.krate;
    let self_ty = &svc.self_ty;
    let tools = svc.tools.iter().filter(|t| !t.generic).map(|t| {
        let sent: Vec<&ParamDef> = t.params.iter().filter(|p| !left_out(p)).collect();
        tool_method(k, t, &sent)
    });
    let resources = svc.resources.iter().map(|r| resource_method(k, r));
    let prompts = svc.prompts.iter().map(|p| prompt_method(k, p));
    let completers = svc.completers.iter().map(|c| completer_method(k, c));
    let methods = quote!(#(#tools)* #(#resources)* #(#prompts)* #(#completers)*);
    let service = svc.name.as_ref().map_or_else(
        || quote::ToTokens::to_token_stream(self_ty).to_string(),
        syn::LitStr::value,
    );
    let doc = format!(
        " A typed client of the `{service}` service: one method per tool, resource, prompt and \
         completer (generated by `#[mcp::service(client)]`). Get one with \
         `mcp::client::typed::in_process(service)` in a test, or wrap a connected \
         `mcp::client::Client` with `mcp::client::TypedClient::from_client`."
    );
    let outer = struct_and_impl(k, &quote!(pub), client, quote!(#[doc = #doc]), methods);
    let checks = svc
        .tools
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.generic)
        .map(|(i, t)| tool_checks(k, i, t, true));
    let typed = typed_client_impl(k, client);
    let inner = quote! {
        #(#checks)*
        #typed
        impl #k::client::typed::ServiceClient for #self_ty {
            type Client = #client;
        }
    };
    (
        quote!(#k::__if_client! { #outer }),
        quote!(#k::__if_client! { #inner }),
    )
}

/// The typed client an `#[mcp::client]` trait describes.
pub fn trait_client(def: &ClientTraitDef) -> TokenStream {
    let k = &def.krate;
    let methods = def.tools.iter().filter(|t| !t.generic).map(|t| {
        let sent: Vec<&ParamDef> = t.params.iter().collect();
        tool_method(k, t, &sent)
    });
    let vis = &def.vis;
    let attrs = &def.attrs;
    let outer = struct_and_impl(
        k,
        &quote!(#vis),
        &def.client,
        quote!(#(#attrs)*),
        quote!(#(#methods)*),
    );
    let kind_fns = def
        .tools
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.generic)
        .flat_map(|(i, t)| super::basic::kind_fns(k, i, t));
    let table = super::basic::tools_table(k, &def.tools);
    let checks = def
        .tools
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.generic)
        .map(|(i, t)| tool_checks(k, i, t, false));
    let typed = typed_client_impl(k, &def.client);
    quote! {
        #outer
        const _: () = {
            #(#kind_fns)*
            #table
            #(#checks)*
            #typed
        };
    }
}
