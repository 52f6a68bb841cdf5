# mqsim in a container: the simulator (`serve`, the default command), or any other command
# (`conform`, `chaos`, …) with the image as the tool.
#
#   docker build -t mqsim .
#   docker run --rm -p 58080-58082:58080-58082 mqsim                 # three nodes on 58080-58082
#   docker run --rm --network host mqsim serve --port 9000            # on the host's network
#   docker run --rm -v "$PWD/out:/out" mqsim conform --target sim --report-dir /out
#
# The image installs the tarball `npm pack` makes of this checkout, as `npm install -g mqsim` would
# install the published package. The test image of the Docker tests (scripts/docker/scratch-image.ts)
# is built FROM scratch with the same tarball and the runtime block below, taken from this file.

FROM node:20-bookworm-slim AS pack
WORKDIR /src
COPY package.json package-lock.json ./
# Scripts run at `npm pack`, once the sources are here.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm pack --pack-destination /tmp && mv /tmp/mqsim-*.tgz /tmp/mqsim.tgz

FROM node:20-bookworm-slim
COPY --from=pack /tmp/mqsim.tgz /tmp/mqsim.tgz
RUN npm install -g /tmp/mqsim.tgz --omit=dev --no-audit --no-fund && rm /tmp/mqsim.tgz && npm cache clean --force
COPY docker/healthcheck.mjs /usr/local/lib/mqsim-healthcheck.mjs

# --- runtime (the test image FROM scratch is configured with these lines as they are) ---
ENV NODE_ENV=production
USER node
WORKDIR /home/node
EXPOSE 58080 58081 58082
# Reads the port from the server's own command line (PID 1), so `serve --port N` stays healthy.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["node", "/usr/local/lib/mqsim-healthcheck.mjs"]
ENTRYPOINT ["mqsim"]
CMD ["serve", "--host", "0.0.0.0"]
