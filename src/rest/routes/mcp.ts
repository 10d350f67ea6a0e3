import { Router, type Request } from 'express';
import { authenticateCredential } from '../../core/accounts/api-keys.ts';
import type { Runtime } from '../../core/context.ts';
import { ServiceError } from '../../core/errors.ts';
import { mcpChallenge } from '../../core/oauth/metadata.ts';
import { serveMcpRequest } from '../../mcp/http.ts';
import { exposedTools } from '../../mcp/tool-selection.ts';
import { sendError, setRateLimitHeaders } from '../errors.ts';

/**
 * Browsers send Origin; a page on another site must not drive the tools with a key it holds
 * (DNS rebinding). Non-browser clients send no Origin and pass.
 */
function originAllowed(req: Request, runtime: Runtime): boolean {
  const origin = req.get('origin');
  if (!origin) return true;
  const allowed = [new URL(runtime.config.publicBaseUrl).origin, ...runtime.config.mcpAllowedOrigins];
  return allowed.includes(origin);
}

/**
 * Streamable HTTP MCP on the REST port: POST only, Bearer on every request, stateless. The tool
 * selection is settled here, once, so a bad SERVICE_TOOLS stops the app from being built.
 */
export function mcpRoutes(runtime: Runtime): Router {
  const router = Router();
  const tools = exposedTools(runtime.config.mcpTools);
  const { docsUrl } = runtime.config;
  router.post('/mcp', async (req, res) => {
    if (!originAllowed(req, runtime)) {
      return sendError(
        res,
        new ServiceError('origin_not_allowed', `Origin ${req.get('origin')} may not call /mcp.`),
        docsUrl,
      );
    }
    try {
      // The scopes stay on the request for per-tool enforcement; the tool calls authenticate again each.
      res.locals.scopes = authenticateCredential(runtime, req.get('authorization'), { planChecks: false }).scopes;
    } catch (error) {
      if (error instanceof ServiceError) {
        // RFC 6750 and RFC 9728: every 401 says where the OAuth metadata is; a credential that was sent
        // (an unknown, revoked or expired key, or a token of no kind the service issues) is invalid_token.
        const sent = /^Bearer\s+\S/i.test(req.get('authorization') ?? '');
        res.setHeader(
          'WWW-Authenticate',
          mcpChallenge(
            runtime.config,
            sent || error.code !== 'missing_key' ? { description: error.message } : undefined,
          ),
        );
      }
      throw error;
    }
    await serveMcpRequest(runtime, req, res, tools, (state) => setRateLimitHeaders(res, state));
  });
  router.all('/mcp', (_req, res) => {
    res.setHeader('Allow', 'POST');
    sendError(
      res,
      new ServiceError(
        'method_not_allowed',
        'This server is stateless: send MCP messages with POST; there is no SSE stream or session to delete.',
      ),
      docsUrl,
    );
  });
  return router;
}
