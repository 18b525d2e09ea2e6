fn t(ctx: RequestContext<RoleServer>) { ctx.peer.list_roots(); }
// café ÿþ
