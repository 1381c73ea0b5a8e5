import type { FastifyInstance } from 'fastify';
import { FORMAT_TABLES } from '../../engine/formatTables.ts';

/** Locales the server accepts for users (the public service's list). */
export const SUPPORTED_LOCALES = [
  'de_DE', 'en_AU', 'en_CA', 'en_GB', 'en_IE', 'en_IN', 'en_NZ', 'en_SG', 'en_US', 'en_ZA',
  'es_AR', 'es_CL', 'es_CO', 'es_ES', 'es_MX', 'es_PE', 'es_US', 'fr_BE', 'fr_CA', 'fr_CH',
  'fr_FR', 'it_CH', 'it_IT', 'ja_JP', 'ko_KR', 'nl_BE', 'nl_NL', 'pt_BR', 'pt_PT', 'ru_RU',
  'sv_SE', 'zh_CN', 'zh_TW',
];

const body = JSON.stringify({
  formats: FORMAT_TABLES,
  supportedLocales: SUPPORTED_LOCALES,
  featureInfo: { symbolsVersion: 2 },
});

export async function serverInfoRoutes(app: FastifyInstance): Promise<void> {
  // Application constants: the same for every caller, so no token is needed.
  app.get('/serverinfo', { config: { public: true } }, async (_req, reply) => {
    return reply.type('application/json; charset=utf-8').send(body);
  });
}
