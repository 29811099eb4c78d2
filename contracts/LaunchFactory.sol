// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {PoolId, PoolIdLibrary} from "@uniswap/v4-core/src/types/PoolId.sol";
import {LaunchBuyParams, LaunchBuyRequest, LaunchParams, TokenTransfer} from "./LaunchTypes.sol";
import {LaunchFactoryCore} from "./LaunchFactoryCore.sol";
import {LaunchHookBase} from "./LaunchHookBase.sol";

interface ILaunchBuyAdapter {
    function executeLaunchBuy(LaunchBuyRequest calldata request) external payable returns (uint256 amountOut);
}

/// @title LaunchFactory
/// @notice The current ("launchpad-v4-minimal") ERC-20 launch factory: a native launch fee, and an
/// optional atomic first buy for the creator through the launch-buy adapter.
contract LaunchFactory is LaunchFactoryCore {
    using PoolIdLibrary for PoolKey;

    uint256 public constant MAX_ROUTE_DATA_LENGTH = 4096;

    uint256 public nativeLaunchFee;
    address public launchBuyAdapter;

    event NativeLaunchFeePaid(address indexed payer, address indexed recipient, uint256 amount);
    event NativeLaunchFeeUpdated(uint256 fee);
    event LaunchBuyAdapterUpdated(address adapter);
    event LaunchBuyExecuted(
        address indexed token,
        PoolId indexed poolId,
        address indexed originalCreator,
        address fundingToken,
        uint256 amountIn,
        uint256 amountOut,
        address adapter
    );

    error InvalidNativeLaunchFeePayment(uint256 expected, uint256 actual);
    error LaunchBuyAdapterNotConfigured();
    error InvalidLaunchBuyParams();
    error InvalidLaunchBuyPayment(uint256 expected, uint256 actual);

    constructor(IPoolManager poolManager_, LaunchHookBase hook_, address feeEscrow_, address owner_)
        LaunchFactoryCore(poolManager_, hook_, feeEscrow_, owner_)
    {}

    function setNativeLaunchFee(uint256 fee) external onlyOwner {
        nativeLaunchFee = fee;
        emit NativeLaunchFeeUpdated(fee);
    }

    function setLaunchBuyAdapter(address adapter) external onlyOwner {
        launchBuyAdapter = adapter;
        emit LaunchBuyAdapterUpdated(adapter);
    }

    /// @notice The CREATE2 init-code hash of the token these parameters would create.
    function launchTokenBytecodeHash(LaunchParams calldata p) external view virtual returns (bytes32) {
        return tokenDeployer.initCodeHash(p.tokenName, p.tokenSymbol, launchSupply);
    }

    function createLaunch(LaunchParams calldata p) external payable returns (address token, PoolId poolId) {
        uint256 nativeFee = _nativeFeeDue();
        if (msg.value != nativeFee) revert InvalidNativeLaunchFeePayment(nativeFee, msg.value);
        PoolKey memory key;
        (token, key) = _launch(_core(p), msg.sender);
        poolId = key.toId();
        _payLaunchFee();
    }

    function createLaunchAndBuy(LaunchParams calldata p, LaunchBuyParams calldata b)
        external
        payable
        returns (address token, PoolId poolId, uint256 amountOut)
    {
        address adapter = launchBuyAdapter;
        if (adapter == address(0)) revert LaunchBuyAdapterNotConfigured();
        if (b.amountIn == 0 || b.minAmountOut == 0 || b.routeData.length == 0 || b.routeData.length > MAX_ROUTE_DATA_LENGTH)
        {
            revert InvalidLaunchBuyParams();
        }
        bool nativeFunding = b.fundingToken == address(0);
        uint256 expected = _nativeFeeDue() + (nativeFunding ? b.amountIn : 0);
        if (msg.value != expected) revert InvalidLaunchBuyPayment(expected, msg.value);
        PoolKey memory key;
        (token, key) = _launch(_core(p), msg.sender);
        poolId = key.toId();
        if (!nativeFunding) TokenTransfer.pull(b.fundingToken, msg.sender, adapter, b.amountIn);
        hook.armLaunchBuy(poolId, adapter);
        amountOut = ILaunchBuyAdapter(adapter).executeLaunchBuy{value: nativeFunding ? b.amountIn : 0}(
            LaunchBuyRequest({
                originalCreator: msg.sender,
                launchToken: token,
                quoteToken: p.quoteToken,
                poolKey: key,
                fundingToken: b.fundingToken,
                amountIn: b.amountIn,
                minAmountOut: b.minAmountOut,
                deadline: p.deadline,
                routeData: b.routeData
            })
        );
        emit LaunchBuyExecuted(token, poolId, msg.sender, b.fundingToken, b.amountIn, amountOut, adapter);
        _payLaunchFee();
    }

    function _core(LaunchParams calldata p) internal pure returns (Launch memory) {
        return Launch({
            name: p.tokenName,
            symbol: p.tokenSymbol,
            contractURI: p.tokenContractURI,
            creatorSalt: p.creatorSalt,
            quote: p.quoteToken,
            expectedConfigVersion: p.expectedConfigVersion,
            deadline: p.deadline,
            metadataEditable: p.metadataEditable,
            metadataKeys: p.metadataKeys,
            metadataValues: p.metadataValues,
            reserved: 0,
            creatorFeeRecipient: address(0)
        });
    }

    /// The native value a launch must carry for its fee (a concrete factory may charge in an ERC-20).
    function _nativeFeeDue() internal view virtual returns (uint256) {
        return nativeLaunchFee;
    }

    function _payLaunchFee() internal virtual {
        uint256 fee = nativeLaunchFee;
        if (fee == 0) return;
        TokenTransfer.send(address(0), platformFeeRecipient, fee);
        emit NativeLaunchFeePaid(msg.sender, platformFeeRecipient, fee);
    }
}
